/** Where the control routes live (its own module, so that naming it does not load Express). */
export const CONTROL_PREFIX = '/_double'
