/**
 * Path parameters never leave their segment: `.`, `..` and empty values are refused (naming the parameter) before
 * anything is sent, by every client that puts a value into a path; other values with dots are sent as they are.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardClient, ExperimentsClient, FlagsClient, TaxonomyClient } from '../../src/clients/index.js';
import { expectRefused, json, requestOf, rig, type Rig } from './helpers.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

type Call = readonly [() => Promise<unknown>, string];

/** Every operation with a path parameter, with `bad` in that parameter; the field each one must name. */
function callsWith(t: Rig['transport'], bad: string): Call[] {
  const calls: Call[] = [];
  for (const c of [new ExperimentsClient(t), new FlagsClient(t)]) {
    calls.push(
      [() => c.get(bad), 'id'],
      [() => c.update(bad, { enabled: false }), 'id'],
      [() => c.listVersions(bad), 'id'],
      [() => c.getVersion('e1', bad), 'versionId'],
      [() => c.listVariants(bad), 'id'],
      [() => c.getVariant('e1', bad), 'variantKey'],
      [() => c.updateVariant('e1', bad, { description: 'd' }), 'variantKey'],
      [() => c.deleteVariant('exp1', bad), 'variantKey'],
      [() => c.deleteVariant(bad, 'on'), 'id'],
      [() => c.listVariantUsers('e1', bad), 'variantKey'],
      [() => c.addVariantUsers('e1', bad, ['u1']), 'variantKey'],
      [() => c.removeVariantUser('e1', 'on', bad), 'userIndex'],
      [() => c.removeAllVariantUsers('e1', bad), 'variantKey'],
      [() => c.bulkRemoveVariantUsers('e1', bad, ['u1']), 'variantKey'],
      [() => c.listDeployments(bad), 'id'],
      [() => c.removeDeployment('e1', bad), 'deploymentId'],
    );
  }
  const x = new TaxonomyClient(t);
  calls.push(
    [() => x.categories.get(bad), 'category_name'],
    [() => x.eventTypes.get(bad), 'event_type'],
    [() => x.eventTypes.update(bad, { category: 'c' }), 'event_type'],
    [() => x.eventTypes.delete(bad), 'event_type'],
    [() => x.eventTypes.restore(bad), 'event_type'],
    [() => x.eventProperties.update(bad, { event_type: 'e', description: 'd' }), 'event_property'],
    [() => x.eventProperties.delete(bad), 'event_property'],
    [() => x.eventProperties.restore(bad), 'event_property'],
    [() => x.userProperties.get(bad), 'user_property'],
    [() => x.userProperties.update(bad, { description: 'd' }), 'user_property'],
    [() => x.userProperties.delete(bad), 'user_property'],
    [() => x.userProperties.restore(bad), 'user_property'],
    [() => x.groupProperties.get(bad), 'group_property'],
    [() => x.groupProperties.update(bad, { description: 'd' }), 'group_property'],
    [() => new DashboardClient(t).chartCsv(bad), 'chart_id'],
  );
  return calls;
}

describe('path parameters', () => {
  for (const bad of ['.', '..', '']) {
    it(`${JSON.stringify(bad)} is refused in every path parameter, naming it, and nothing is sent`, async () => {
      r = await rig((_req, res) => json(res, 200, { success: true, data: {} }));
      await expectRefused(r, callsWith(r.transport, bad));
    });
  }

  it('values that merely hold dots are one segment, sent as they are', async () => {
    r = await rig((_req, res) => json(res, 200, { success: true, data: {} }));
    const e = new ExperimentsClient(r.transport);
    const t = new TaxonomyClient(r.transport);
    const cases: [() => Promise<unknown>, string][] = [
      [() => e.deleteVariant('exp1', '...'), '/api/1/experiments/exp1/variants/...'],
      [() => e.deleteVariant('exp1', '.hidden'), '/api/1/experiments/exp1/variants/.hidden'],
      [() => e.deleteVariant('exp1', '%2e%2e'), '/api/1/experiments/exp1/variants/%252e%252e'],
      [() => t.eventTypes.delete('a..b'), '/api/2/taxonomy/event/a..b'],
      [() => t.eventTypes.delete('../x'), '/api/2/taxonomy/event/..%2Fx'],
    ];
    for (const [call, path] of cases) expect((await requestOf(r, call)).url).toBe(path);
  });
});
