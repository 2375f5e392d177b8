// A user's config can name 'gateway-double/testing/vitest' directly; this file shows the inline
// form and resolves the module through the package's own `exports`.
import { createGlobalSetup, optionsFromEnv } from 'gateway-double/testing/vitest'

export default createGlobalSetup({ ...optionsFromEnv(), isolate: ['ethereum'] })
