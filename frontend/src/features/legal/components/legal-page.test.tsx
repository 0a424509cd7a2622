import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';

vi.mock('@/lib/telemetry', async (original) => ({
  ...(await original<typeof import('@/lib/telemetry')>()),
  trackPageView: vi.fn(),
}));
const { trackPageView } = await import('@/lib/telemetry');
const { default: LegalPage } = await import('@/features/legal/components/legal-page');

function renderPage(element: React.ReactNode, path: string) {
  return render(<MemoryRouter initialEntries={[path]}>{element}</MemoryRouter>);
}

describe('legal pages', () => {
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
