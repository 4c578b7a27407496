import { county as findCounty, getCounties } from 'kenya-locations';

/**
 * Suggestions for the shipping form from the `kenya-locations` package: the 47 counties, a
 * county's sub-counties (its constituencies, which its wards belong to) and their wards.
 * The package is large (all its data and a fuzzy search, ~50 KB gzip, none of it tree-shakable),
 * so the shipping screen loads this module on its own, after the form is already usable.
 */

const byName = (a: string, b: string) => a.localeCompare(b, 'en');
const same = (a: string, b: string) => a.trim().localeCompare(b.trim(), 'en', { sensitivity: 'base' }) === 0;

export const countyNames: readonly string[] = getCounties()
  .map((c) => c.name)
  .sort(byName);

/** The constituencies of the county the shopper typed (any case); none for a name not in the list. */
function constituenciesOf(countyName: string) {
  const name = countyNames.find((n) => same(n, countyName));
  return name ? (findCounty(name)?.constituencies() ?? []) : [];
}

export function subCountyNames(countyName: string): string[] {
  return constituenciesOf(countyName)
    .map((c) => c.name)
    .sort(byName);
}

/** The wards of the chosen sub-county, or of the whole county while no known sub-county is chosen. */
export function wardNames(countyName: string, subCountyName: string): string[] {
  const constituencies = constituenciesOf(countyName);
  const chosen = constituencies.find((c) => same(c.name, subCountyName));
  const wards = (chosen ? [chosen] : constituencies).flatMap((c) => c.wards().map((w) => w.name));
  return [...new Set(wards)].sort(byName);
}
