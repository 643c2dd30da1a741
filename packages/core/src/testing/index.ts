/** Test support shared by the packages' and apps' suites (`@toolgate/core/testing`). */
export * from './hostile-json.ts';
export * from './until.ts';
