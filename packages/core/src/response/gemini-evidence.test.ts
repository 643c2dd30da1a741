import { describe, expect, it } from 'vitest';
import { fakeContext } from './fake-response-context.ts';
import { describeGrounding, describeUrlContext, hostedPart } from './gemini-evidence.ts';

describe('hostedPart', () => {
  it.each([
    [{ text: 'hi' }, undefined],
    [{ functionCall: { name: 'x' } }, undefined],
    [
      { executableCode: { language: 'PYTHON', code: 'print(1)', id: 'e1' } },
      {
        role: 'call',
        key: 'executableCode',
        id: 'e1',
        event: {
          providerType: 'executableCode',
          name: 'codeExecution',
          input: { code: 'print(1)', language: 'PYTHON' },
          id: 'e1',
        },
      },
    ],
    [
      { codeExecutionResult: { outcome: 'OUTCOME_DEADLINE_EXCEEDED' } },
      {
        role: 'result',
        key: 'codeExecutionResult',
        id: undefined,
        event: {
          providerType: 'codeExecutionResult',
          name: 'codeExecution',
          error: 'OUTCOME_DEADLINE_EXCEEDED',
        },
      },
    ],
    [
      { toolCall: { id: 't', toolType: 'URL_CONTEXT', args: { url: 'u' } } },
      {
        role: 'call',
        key: 'toolCall',
        id: 't',
        event: { providerType: 'toolCall', name: 'urlContext', input: { url: 'u' }, id: 't' },
      },
    ],
    [
      { toolResponse: { toolType: 'SOMETHING_NEW', response: {} } },
      {
        role: 'result',
        key: 'toolResponse',
        id: undefined,
        event: { providerType: 'toolResponse', name: 'SOMETHING_NEW' },
      },
    ],
  ])('classifies %j', (part, expected) => {
    expect(hostedPart(part)).toEqual(expected);
  });
});

describe('describeGrounding', () => {
  it('attributes web chunks to search, retrieved ones to file search, and dedupes sources', () => {
    const { ctx, hostedEvents } = fakeContext('gemini', { blockedHosted: ['googleSearch'] });
    const web = describeGrounding(
      {
        webSearchQueries: ['q', 7],
        groundingChunks: [{ web: { uri: 'https://a' } }, { web: { uri: 'https://a' } }, null],
      },
      ctx,
    );
    // googleSearch is blocked, googleSearchRetrieval allowed: the allowed description wins.
    expect(web).toMatchObject({ name: 'googleSearchRetrieval', policy_state: 'allowed' });
    expect(hostedEvents.map((e) => e.name)).toEqual(['googleSearch', 'googleSearchRetrieval']);
    expect(hostedEvents[0]).toMatchObject({ input: ['q'], sources: ['https://a'] });
    const files = describeGrounding(
      { groundingChunks: [{ retrievedContext: { uri: 'store/doc-1', title: 'Doc' } }] },
      ctx,
    );
    expect(files).toMatchObject({ name: 'fileSearch', sources: ['store/doc-1'] });
  });
});

describe('describeUrlContext', () => {
  it('lists retrieved URLs as sources and failed statuses as the error', () => {
    const { ctx } = fakeContext('gemini');
    expect(
      describeUrlContext(
        {
          urlMetadata: [
            { retrievedUrl: 'https://a', urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_UNSAFE' },
            { retrievedUrl: 'https://b', urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_UNSAFE' },
            'junk',
          ],
        },
        ctx,
      ),
    ).toMatchObject({
      name: 'urlContext',
      sources: ['https://a', 'https://b'],
      error: 'URL_RETRIEVAL_STATUS_UNSAFE',
    });
  });
});
