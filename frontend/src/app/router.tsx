import { lazy } from 'react';
import { createBrowserRouter, Outlet, useParams, type RouteObject } from 'react-router';
import { RouteErrorScreen } from '@/app/error-boundary';
import { RootLayout } from '@/app/root-layout';
import { trustFramedRoutes, trustStandaloneRoutes } from '@/app/routes/trust-routes';
import { AppShell } from '@/features/shell/components/app-shell';
import { Gender } from '@/lib/api-types';
import { isLanguage } from '@/lib/languages';

// Screens load on demand; the first screen's chunks are measured by scripts/check-size.mjs.
const HomePage = lazy(() => import('@/features/home/components/home-page'));
const NotFoundPage = lazy(() => import('@/app/routes/not-found'));
const SettingsPage = lazy(() => import('@/features/settings/components/settings-page'));
// The chat screen, with group chats composed in (issue 31).
const ChatPage = lazy(() => import('@/app/routes/chats-route'));
const BlogListPage = lazy(() => import('@/features/blog/components/blog-list-page'));
const BlogPostPage = lazy(() => import('@/features/blog/components/blog-post-page'));
const CheckEmailPage = lazy(() => import('@/features/auth/components/check-email-page'));
const PricingPage = lazy(() => import('@/features/payments/components/pricing-page'));
const BuyTokensPage = lazy(() => import('@/features/payments/components/buy-tokens-page'));
const CheckoutPage = lazy(() => import('@/features/payments/components/checkout-page'));
const PaymentResultPage = lazy(() => import('@/features/payments/components/payment-result-page'));
const SubscriptionManagePage = lazy(() => import('@/features/payments/components/subscription-manage-page'));
const OrderHistoryPage = lazy(() => import('@/features/payments/components/order-history-page'));
const GalleryPage = lazy(() => import('@/features/images/components/gallery-page'));
const GenerateImagePage = lazy(() => import('@/features/images/components/generate-image-page'));
const CreatePage = lazy(() => import('@/features/create/components/create-page'));
const MyAiPage = lazy(() => import('@/features/create/components/my-ai-page'));

/** `/:lng/...`: a supported language code, or else the path is simply unknown. */
function LanguageGate() {
  const { lng } = useParams();
  return isLanguage(lng) ? <Outlet /> : <NotFoundPage />;
}

/** Screens inside the main frame. */
const framedRoutes: RouteObject[] = [
  { index: true, element: <HomePage gender={Gender.girls} /> },
  { path: 'ai-boyfriend', element: <HomePage gender={Gender.guys} /> },
  { path: 'setting', element: <SettingsPage /> },
  // `/chat` (the list) and `/chat/{characterId}`: one route, so switching chats keeps the screen.
  { path: 'chat/:characterId?', element: <ChatPage /> },
  // `/group/{groupId}`: a group chat (issue 31), on the same screen beside the chat list.
  { path: 'group/:groupId', element: <ChatPage /> },
  { path: 'blog', element: <BlogListPage /> },
  { path: 'blogs/:blogKey', element: <BlogPostPage /> },
  { path: 'pricing', element: <PricingPage /> },
  { path: 'buytokens', element: <BuyTokensPage /> },
  { path: 'pay/:productId', element: <CheckoutPage /> },
  { path: 'zpay/:productId', element: <CheckoutPage zpay /> },
  { path: 'subscriptionmanage', element: <SubscriptionManagePage /> },
  { path: 'orders', element: <OrderHistoryPage /> },
  { path: 'gallery', element: <GalleryPage /> },
  { path: 'generateimage', element: <GenerateImagePage /> },
  { path: 'createcharacter', element: <CreatePage /> },
  { path: 'myai', element: <MyAiPage /> },
  ...trustFramedRoutes,
];

/** Screens outside the main frame. */
const standaloneRoutes: RouteObject[] = [
  { path: '404', element: <NotFoundPage /> },
  { path: 'checkEmailTip', element: <CheckEmailPage /> },
  { path: 'paymentResults/:resultId', element: <PaymentResultPage /> },
  // Marketing entry points into character creation (spec section 2: outside the main frame).
  { path: 'creategf', element: <CreatePage variant="createGf" /> },
  { path: 'your-ai-girlfriend', element: <CreatePage variant="yourAiGirlfriend" /> },
  ...trustStandaloneRoutes,
];

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <RouteErrorScreen />,
    children: [
      { element: <AppShell />, children: framedRoutes },
      ...standaloneRoutes,
      {
        // The first path segment may be a language code (spec section 2).
        path: ':lng',
        element: <LanguageGate />,
        children: [
          { element: <AppShell />, children: framedRoutes },
          ...standaloneRoutes,
          { path: '*', element: <NotFoundPage /> },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
