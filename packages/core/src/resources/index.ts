export * from './capability-contract.ts';
export * from './envelope.ts';
export * from './gateway.ts';
export * from './identity.ts';
export * from './mediation-policy.ts';
export * from './provider-profile.ts';
export * from './tool-call-approval.ts';
export * from './vocabulary.ts';
