// Runs before each spec file, in its worker: the app under test reads RPC_URL, as dApps do.
import { useIsolatedNetwork } from 'gateway-double/testing/vitest'

const network = useIsolatedNetwork('ethereum', { ifUnavailable: 'share' })
process.env.RPC_URL = network.url
process.env.RPC_ISOLATED = String(network.isolated)
