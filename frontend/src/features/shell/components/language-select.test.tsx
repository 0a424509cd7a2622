import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes, useLocation, useNavigationType } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { languageAtom, store } from '@/app/store';
import { LanguageSelect } from '@/features/shell/components/language-select';

/** Where the router is, and how it got there (PUSH adds a history entry, REPLACE does not). */
function Where() {
  const { pathname, search } = useLocation();
  return <output data-testid="where" data-navigation={useNavigationType()}>{`${pathname}${search}`}</output>;
}

function renderAt(path: string) {
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route
            path="*"
            element={
              <>
                <LanguageSelect />
                <Where />
              </>
            }
          />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
}

afterEach(() => {
  store.set(languageAtom, 'en');
});

describe('LanguageSelect', () => {
  it('switching back to English goes to the unprefixed address, replacing the entry', async () => {
    store.set(languageAtom, 'de');
    renderAt('/de/chat/gf-001?tab=1');
    fireEvent.change(screen.getByTestId('language-select'), { target: { value: 'en' } });
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(/^\/chat\/gf-001\?tab=1$/));
    expect(screen.getByTestId('where').dataset.navigation).toBe('REPLACE');
  });

  it('an address that already had a doubled prefix gets one language only', async () => {
    store.set(languageAtom, 'de');
    renderAt('/en/en/chat');
    fireEvent.change(screen.getByTestId('language-select'), { target: { value: 'en' } });
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(/^\/chat$/));
  });
});
