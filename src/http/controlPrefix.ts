/** Where the control routes live, and the test endpoint's body limit (their own module, so that naming them does not load Express). */
export const CONTROL_PREFIX = '/_double'

/** The test endpoint's body limit: a state dump (`anvil_loadState`) can be large. */
export const DEV_RPC_BODY_LIMIT = 32 * 1024 * 1024
