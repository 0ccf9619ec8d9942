import { describe, expect, test } from 'vitest';
import { FaultsError } from '../../src/sandbox/index.js';
import { parseFaultsFlag } from '../../src/sandbox/faults.js';

describe('parseFaultsFlag (sandbox --faults)', () => {
  test('key=value pairs: numbers, booleans, words, and corruptFiles as |-separated ids', () => {
    expect(parseFaultsFlag('rateLimitEvery=5, expireUrls=true,serverErrorScope=api,corruptFiles=a/1|b/2')).toEqual({
      rateLimitEvery: 5,
      expireUrls: true,
      serverErrorScope: 'api',
      corruptFiles: ['a/1', 'b/2'],
    });
  });

  test('a JSON object, as the control route takes it', () => {
    expect(parseFaultsFlag('{"latencyMs":20,"corruptFiles":["x/1"]}')).toEqual({
      latencyMs: 20,
      corruptFiles: ['x/1'],
    });
  });

  test.each(['nope=1', 'rateLimitEvery', 'rateLimitEvery=-1', 'expireUrls=yes', '{"latencyMs":', '[1]'])(
    '%j is refused',
    (text) => {
      expect(() => parseFaultsFlag(text)).toThrow(FaultsError);
    },
  );
});
