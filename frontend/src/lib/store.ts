/**
 * The one jotai store of the app. React reads it through <Provider store={store}>; code
 * outside React (the API client, the socket client) reads and writes it with store.get/set.
 */
import { createStore } from 'jotai';

export const store = createStore();
