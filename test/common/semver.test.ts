/** Semantic versions as firmware reports them (common/semver.ts), ordered by semver.org 2.0.0 precedence. */
import { compareSemVer, parseSemVer, type SemVer } from '../../common/semver';

const v = (text: string): SemVer => {
  const parsed = parseSemVer(text);
  if (!parsed) throw new Error(`not a version: ${text}`);
  return parsed;
};

test('parses releases, a leading v, pre-releases and build metadata; refuses the rest', () => {
  expect(parseSemVer('v1.4.2')).toEqual({ major: 1, minor: 4, patch: 2, pre: [] });
  expect(parseSemVer('2.0.0-rc.1+build.5')).toEqual({ major: 2, minor: 0, patch: 0, pre: ['rc', 1] });
  for (const bad of ['1.2', '01.2.3', '1.2.3-', 'banana', '1.2.3.4', '']) expect(parseSemVer(bad)).toBeNull();
});

test('orders by precedence: numbers, then a release above its pre-releases, identifiers numeric below alphanumeric', () => {
  const ordered = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.2.0',
    '1.10.0',
    '2.0.0',
  ];
  for (let i = 0; i + 1 < ordered.length; i++) {
    expect(compareSemVer(v(ordered[i] as string), v(ordered[i + 1] as string))).toBeLessThan(0);
    expect(compareSemVer(v(ordered[i + 1] as string), v(ordered[i] as string))).toBeGreaterThan(0);
  }
  expect(compareSemVer(v('v1.2.3+a'), v('1.2.3+b'))).toBe(0);
});
