/**
 * The payment calls (docs/api.md "Payments"): open a checkout on one route, read the
 * user's subscriptions and cancel one, and read an order's state. No call sends an amount:
 * the server prices every order from its catalogue.
 */
import { apiGet, apiPost } from '@/lib/api-client';
import {
  ApiCode,
  type CheckoutOrder,
  type CreateOrderRequest,
  type LastFlowRequest,
  type OrderEntry,
  type Payment,
  type Subscription,
  type SubscriptionRequest,
} from '@/lib/api-types';
import type { PaymentRoute } from '@/lib/catalogue';

export type {
  CheckoutOrder,
  OrderEntry,
  Payment,
  PaymentStatus,
  Subscription,
  SubscriptionState,
} from '@/lib/api-types';

/**
 * POST pay/<endpoint> {productId}. The checkout screen explains 10001 (unknown product),
 * 10006 (the route is off) and 50000 (the processor could not be reached) itself; 10018
 * (a plan is already in force) keeps the client's default, a warning with the server's words.
 */
export function createOrder(route: PaymentRoute, productId: string) {
  return apiPost<CheckoutOrder>(`/user/v1/pay/${route.endpoint}`, { productId } satisfies CreateOrderRequest, {
    handledCodes: [ApiCode.paramError, ApiCode.notFound, ApiCode.serverError],
  });
}

/** GET pay/getUserSubscriptionList → Subscription[], newest first. */
export function getUserSubscriptionList() {
  return apiGet<Subscription[]>('/user/v1/pay/getUserSubscriptionList');
}

/** POST pay/unSubscription {subscriptionId} → true; 10006 not this user's, 10001 not renewing. */
export function unSubscription(subscriptionId: string) {
  return apiPost<boolean>('/user/v1/pay/unSubscription', { subscriptionId } satisfies SubscriptionRequest, {
    handledCodes: [ApiCode.notFound, ApiCode.paramError],
  });
}

/**
 * POST payment/getUserLastFlowId {orderId} → the order, or null when the user has no such
 * order. Quiet: the results page polls it and says itself when it cannot reach the server.
 */
export function getUserLastFlowId(orderId: string) {
  return apiPost<Payment | null>('/user/v1/payment/getUserLastFlowId', { orderId } satisfies LastFlowRequest, {
    quiet: true,
  });
}

/** POST payment/getUserOrderList {} → the user's orders, newest first (at most 100). */
export function getUserOrderList() {
  return apiPost<OrderEntry[]>('/user/v1/payment/getUserOrderList', {});
}
