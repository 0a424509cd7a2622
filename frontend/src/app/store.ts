/**
 * The one jotai store of the app and the one module every other file takes atoms from:
 * the app-wide atoms (src/lib/state.ts) and each feature's (src/features/<name>/state.ts)
 * are re-exported here, and ESLint forbids importing those files anywhere else. React reads
 * the store through <Provider store={store}>; code outside React (the API client, the socket
 * client) reads and writes it with store.get/set.
 */
import { createStore } from 'jotai';

export * from '@/lib/state';
export * from '@/features/chat/state';
export * from '@/features/shell/state';

export const store = createStore();
