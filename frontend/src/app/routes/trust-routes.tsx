/**
 * Legal, policy and landing routes (spec section 2), kept apart from router.tsx so each
 * issue's routes stay easy to read and merge.
 */
import { lazy } from 'react';
import type { RouteObject } from 'react-router';
import { LEGAL_DOCS } from '@/features/legal/lib/legal-docs';
import { LANDING_ROUTES, ROUTES } from '@/lib/routes';

const LegalPage = lazy(() => import('@/features/legal/components/legal-page'));
const LandingPage = lazy(() => import('@/features/home/components/landing-page'));

const withoutSlash = (path: string) => path.replace(/^\//, '');

/** Legal pages and landing pages, inside the main frame. */
export const trustFramedRoutes: RouteObject[] = [
  ...Object.values(LEGAL_DOCS).map(({ key, path }) => ({
    path: withoutSlash(path),
    element: <LegalPage docKey={key} />,
  })),
  ...LANDING_ROUTES.map(({ key, path }) => ({ path: withoutSlash(path), element: <LandingPage topic={key} /> })),
];

/** The policy pages the mobile app embeds: no shell, no heading. */
export const trustStandaloneRoutes: RouteObject[] = [
  { path: withoutSlash(ROUTES.privacyPolicyForApp), element: <LegalPage docKey="privacyPolicy" embedded /> },
  {
    path: withoutSlash(ROUTES.communityGuidelinesForApp),
    element: <LegalPage docKey="communityGuidelines" embedded />,
  },
];
