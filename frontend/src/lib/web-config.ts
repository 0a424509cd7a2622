/** The deployment's web configuration (POST /user/v1/config/getWebConfig, API.md section 4). */
import { type ClientWebConfig, DEFAULT_WEB_CONFIG, globalWebConfigAtom, store } from '@/app/store';
import { apiPost } from '@/lib/api-client';
import type { WebConfig } from '@/lib/api-types';

export function mergeWebConfig(data: Partial<WebConfig> | null | undefined): ClientWebConfig {
  return {
    ...DEFAULT_WEB_CONFIG,
    ...data,
    defaultEnergy: { ...DEFAULT_WEB_CONFIG.defaultEnergy, ...data?.defaultEnergy },
    social: { ...data?.social },
    signIn: data?.signIn ?? null,
  };
}

/** Loads the config into the store; on failure the defaults (voice 2, picture 20) stay. */
export async function loadWebConfig(): Promise<void> {
  try {
    const envelope = await apiPost<WebConfig>('/user/v1/config/getWebConfig', {}, { quiet: true });
    if (!envelope.success) return;
    const config = mergeWebConfig(envelope.data);
    store.set(globalWebConfigAtom, config);
  } catch {
    // The defaults are usable; the header simply shows no social links.
  }
}
