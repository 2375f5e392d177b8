// The recipe imports gateway-double by its package name, as a user's suite would.
export { localhostFetch } from 'gateway-double'
export { GatewayDoubleSetupError, gatewayDouble, useIsolatedNetwork } from 'gateway-double/testing/vitest'
