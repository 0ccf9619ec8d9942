/** The frame schedule (idle stretches as rrweb's skipInactive plays them, ranges, speed) and `--from/--to` forms. */
import { describe, expect, it } from 'vitest';
import { frameCount, frameOffsets, parseVideoTime, segments, videoLength } from '../../src/video/index.js';

const timeline = {
  start: 1_000_000,
  end: 1_000_000 + 80_000,
  interactions: [1_000_000 + 2_000, 1_000_000 + 62_000, 1_000_000 + 63_000],
};

describe('segments', () => {
  it('plays a 60 s idle stretch at round(60 / 5)× = 12×, from the interaction before it to the one after', () => {
    const parts = segments(timeline, { fps: 10, speed: 1, skipInactivity: true });
    expect(parts).toEqual([
      { from: 0, to: 2_000, rate: 1 },
      { from: 2_000, to: 62_000, rate: 12 },
      { from: 62_000, to: 80_000, rate: 1 },
    ]);
    expect(videoLength(parts)).toBe(2_000 + 5_000 + 18_000);
  });

  it('plays everything at the speed without skipping, and cuts the range', () => {
    expect(segments(timeline, { fps: 10, speed: 2, skipInactivity: false })).toEqual([
      { from: 0, to: 80_000, rate: 2 },
    ]);
    expect(segments(timeline, { fps: 10, speed: 1, skipInactivity: true, from: 30_000, to: 70_000 })).toEqual([
      { from: 30_000, to: 62_000, rate: 12 },
      { from: 62_000, to: 70_000, rate: 1 },
    ]);
  });

  it('does not skip a gap under 10 s × speed', () => {
    expect(segments(timeline, { fps: 10, speed: 8, skipInactivity: true })).toEqual([{ from: 0, to: 80_000, rate: 8 }]);
  });
});

describe('stretches with no event', () => {
  const day = 86_400_000;
  it('two events 30 days apart and no interaction plan 5 s of video (25.9 M frames before)', () => {
    const quiet = { start: 0, end: 30 * day, interactions: [], events: [0, 30 * day] };
    const parts = segments(quiet, { fps: 10, speed: 1, skipInactivity: true });
    expect(parts).toEqual([{ from: 0, to: 30 * day, rate: (30 * day) / 5_000 }]);
    expect(frameCount(parts, 10)).toBe(51);
  });

  it('inside one of rrweb’s skips (at most 360×), a stretch with no event goes faster: 5 s whatever its length', () => {
    const t = { start: 0, end: 3_600_000, interactions: [0, 3_600_000], events: [0, 3_600_000] };
    const parts = segments(t, { fps: 10, speed: 1, skipInactivity: true });
    expect(parts).toEqual([{ from: 0, to: 3_600_000, rate: 720 }]);
    expect(videoLength(parts)).toBe(5_000);
  });

  it('without skipping, nothing is compressed (the length limit bounds the video)', () => {
    const quiet = { start: 0, end: 60_000, interactions: [], events: [0, 60_000] };
    expect(segments(quiet, { fps: 10, speed: 1, skipInactivity: false })).toEqual([{ from: 0, to: 60_000, rate: 1 }]);
  });
});

describe('frameOffsets', () => {
  it('gives one frame per 1/fps of video, the last at the end, in order', () => {
    const parts = segments(timeline, { fps: 10, speed: 1, skipInactivity: true });
    const offsets = [...frameOffsets(parts, 10)];
    expect(offsets).toHaveLength(frameCount(parts, 10));
    expect(offsets).toHaveLength(251);
    expect(offsets[0]).toBe(0);
    expect(offsets[20]).toBeCloseTo(2_000);
    expect(offsets[21]).toBeCloseTo(2_000 + 100 * 12);
    expect(offsets.at(-1)).toBe(80_000);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]!).toBeGreaterThan(offsets[i - 1]!);
  });
});

describe('parseVideoTime', () => {
  it('reads offsets and ISO times', () => {
    expect(parseVideoTime('90', '--from')).toBe(90_000);
    expect(parseVideoTime('90s', '--from')).toBe(90_000);
    expect(parseVideoTime('1500ms', '--from')).toBe(1_500);
    expect(parseVideoTime('2m', '--from')).toBe(120_000);
    expect(parseVideoTime('1:30', '--from')).toBe(90_000);
    expect(parseVideoTime('1:02:03.5', '--from')).toBe(3_723_500);
    expect(parseVideoTime('2026-11-22T00:42:53Z', '--from')).toEqual(new Date('2026-11-22T00:42:53Z'));
    expect(() => parseVideoTime('soon', '--to')).toThrow(/--to must be/);
  });
});
