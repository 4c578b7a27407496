import type { ShopSettings } from '../../shared/schemas/settings.js';
import type { Db } from '../db/client.js';
import { readSettings } from '../domain/settings.js';
import type { CatalogueCache } from './catalogue-cache.js';

/** A generous size for the LRU's accounting: the settings are a few hundred bytes of JSON. */
const SETTINGS_SIZE = 1024;

/**
 * The shop's settings as requests read them (GET /api/settings, the admin's form): kept in the
 * catalogue cache under the settings version of the catalogue's feed, and so exactly as fresh as
 * a price. A settings write records `{settings: true}` after it commits, and every instance's
 * next request sees the new version and reads the row again; none serves the old settings after
 * the write has answered. If the versions cannot be read, the row is read every time.
 */
export class SettingsCache {
  constructor(
    private readonly cache: CatalogueCache,
    private readonly db: Db,
  ) {}

  async current(): Promise<ShopSettings> {
    const state = await this.cache.state();
    if (!state) return readSettings(this.db);
    return this.cache.get(
      'settings',
      state.settings,
      () => readSettings(this.db),
      () => SETTINGS_SIZE,
    );
  }
}
