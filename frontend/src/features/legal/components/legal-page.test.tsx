import { render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decryptText, encryptText } from '@/lib/envelope-crypto';

vi.mock('@/lib/telemetry', async (original) => ({
  ...(await original<typeof import('@/lib/telemetry')>()),
  trackPageView: vi.fn(),
}));
const { trackPageView } = await import('@/lib/telemetry');
const { default: LegalPage } = await import('@/features/legal/components/legal-page');

function renderPage(element: React.ReactNode, path: string) {
  return render(<MemoryRouter initialEntries={[path]}>{element}</MemoryRouter>);
}

/** Answers every API call with `data` in a success envelope, encrypted as the server does. */
function serve(data: unknown) {
  const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
    const key = (init.headers as Record<string, string>).secretKey!;
    const plain = JSON.stringify({ code: 200, msg: '', success: true, data });
    return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

beforeEach(() => {
  // No served versions unless a test serves some: the network is down.
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => {
      throw new TypeError('offline');
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('legal pages', () => {
  it('a version published by an operator replaces the bundled text and date', async () => {
    const fetchMock = serve({
      docs: [
        {
          docKey: 'termsOfUse',
          lastModified: '2026-11-30',
          text: {
            title: 'Terms of Use v2',
            intro: 'New intro.',
            sections: [{ heading: 'One', paragraphs: ['Changed.'] }],
          },
        },
        // Malformed: ignored, the bundled privacy policy stays.
        { docKey: 'privacyPolicy', lastModified: 'yesterday', text: { title: 'x' } },
      ],
    });
    renderPage(<LegalPage docKey="termsOfUse" />, '/legal-information');
    const doc = screen.getByTestId('legal-termsOfUse');
    // The bundled text shows while the served one loads.
    expect(doc).toHaveTextContent('Last modified: October 20, 2024');
    expect(await within(doc).findByRole('heading', { level: 1, name: 'Terms of Use v2' })).toBeInTheDocument();
    expect(doc).toHaveTextContent('Last modified: November 30, 2026');
    expect(doc).toHaveTextContent('Changed.');
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/lust/api/user/v1/legal/getLegalTexts');
    const key = (init.headers as Record<string, string>).secretKey!;
    expect(JSON.parse(await decryptText(key, JSON.parse(init.body as string).requestData))).toEqual({ lang: 'en' });
  });

  it('the bundled text stays when the served versions cannot be loaded', async () => {
    renderPage(<LegalPage docKey="termsOfUse" />, '/legal-information');
    await waitFor(() => expect(fetch).toHaveBeenCalled());
    const doc = screen.getByTestId('legal-termsOfUse');
    expect(within(doc).getByRole('heading', { level: 1, name: 'Terms of Use' })).toBeInTheDocument();
    expect(doc).toHaveTextContent('Last modified: October 20, 2024');
  });

  it('the terms page has its heading, date, binding-language note and links to the other policies', () => {
    renderPage(<LegalPage docKey="termsOfUse" />, '/legal-information');
    const doc = screen.getByTestId('legal-termsOfUse');
    expect(within(doc).getByRole('heading', { level: 1, name: 'Terms of Use' })).toBeInTheDocument();
    expect(doc).toHaveTextContent('Last modified: October 20, 2024');
    expect(doc).toHaveTextContent('This English text is the legally binding version.');
    expect(within(doc).getAllByRole('link', { name: 'Privacy Policy' })[0]).toHaveAttribute('href', '/privacy-policy');
    expect(within(doc).getAllByRole('link', { name: 'support@amora.chat' })[0]).toHaveAttribute(
      'href',
      'mailto:support@amora.chat',
    );
    expect(doc).toHaveTextContent('Amora Ltd, a company registered in Malta');
    expect(trackPageView).toHaveBeenCalledWith('termsOfUse');
    expect(document.title).toBe('Terms of Use – Amora');
  });

  it('links keep the language prefix of the page', () => {
    renderPage(<LegalPage docKey="communityGuidelines" />, '/de/communityguidelines');
    expect(screen.getAllByRole('link', { name: 'Complaint Policy' })[0]).toHaveAttribute(
      'href',
      '/de/complaint-policy',
    );
  });

  it('the app-embedded copy has no heading and is not indexed', () => {
    renderPage(<LegalPage docKey="privacyPolicy" embedded />, '/privacyPolicyForApp');
    const doc = screen.getByTestId('legal-privacyPolicy');
    expect(within(doc).queryByRole('heading', { level: 1 })).not.toBeInTheDocument();
    expect(doc).toHaveTextContent('Financial data is not permanently stored by Amora');
    expect(document.head.querySelector('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
  });

  it('the privacy policy lists the ten data categories', () => {
    renderPage(<LegalPage docKey="privacyPolicy" />, '/privacy-policy');
    const list = screen.getAllByRole('list')[0]!;
    expect(within(list).getAllByRole('listitem')).toHaveLength(10);
  });
});
