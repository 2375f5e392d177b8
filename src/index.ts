/**
 * The library API for test runners: build the app without listening (supertest), or start and
 * stop a server in-process; the core itself for other transports; helpers to reach
 * `<network>-mainnet.localhost` from Node.
 */
export { createApp } from './http/app.ts'
export type { AppDeps, AppOptions, GatewayApp } from './http/app.ts'
export { CONTROL_PREFIX, createControlRouter } from './http/controlRoutes.ts'
export { startServer, loadNetworks, DEFAULT_PORT, DEFAULT_BIND_HOST } from './http/server.ts'
/**
 * Freezes a fork's cache folder into a fixture folder that serves with no upstream, its proofs
 * checked (docs/forking.md; imported on call, so that importing the package does not load it).
 */
export async function freezeFork(from: string, out: string): Promise<{ reads: number; proofs: number }> {
  return (await import('./chain/loading/fork/freeze.ts')).freezeFork(from, out)
}
export type { ProfileServeOption, RunningServer, ServedNetwork, ServedProfile, StartServerOptions } from './http/server.ts'
export { PROFILE_NAMES } from './gateway/profiles/profile.ts'
export type { ProfileInput, ProfileSpec } from './gateway/profiles/profile.ts'
export { createNodeHandler, MAX_BODY_BYTES } from './http/nodeHandler.ts'
export { localhostAgent, localhostFetch, localhostLookup, isLocalhostName } from './http/client.ts'
export { LocalhostWebSocket } from './http/localhostWebSocket.ts'
export { createWebSocketTransport, CLOSE_GRACE_MS } from './http/webSocketServer.ts'
export type { WebSocketTransport } from './http/webSocketServer.ts'
export { DEFAULT_SOCKET_LIMITS, CLOSE_DAILY_LIMIT, CLOSE_IDLE, CLOSE_SHUTDOWN } from './gateway/sockets/limits.ts'
export type { SocketLimits } from './gateway/sockets/limits.ts'
export type { ControlAccess } from './gateway/controlAccess.ts'
export { DEFAULT_CONTROL_LIMITS } from './gateway/controlLimits.ts'
export type { ControlLimits } from './gateway/controlLimits.ts'
export type { MessageOutcome, SocketSession, SocketSink } from './gateway/sockets/session.ts'
export type { UpgradeAnswer } from './gateway/sockets/socketSide.ts'
export { EVENT_PRICES, PENDING_WINDOW_MS } from './gateway/sockets/subscriptions.ts'
export { SUBSCRIPTION_TYPES } from './rpc/subscriptions.ts'
export type { SubscriptionType } from './rpc/subscriptions.ts'

export { createGateway, DEFAULT_BATCH_LIMIT, defaultRpcBackend, silentLogger } from './gateway/gateway.ts'
export type { Gateway, GatewayOptions, Logger, RpcBackend } from './gateway/gateway.ts'
export type { GatewayRequest } from './gateway/request.ts'
export type { HttpResponse } from './gateway/response.ts'
export {
  ConfigError,
  DEFAULT_CONFIG_PATH,
  DEFAULT_SERVICE_HOST,
  loadConfigFile,
  parseConfig,
  withFixtures,
  withForks,
} from './gateway/config.ts'
export type { GatewayConfig, GatewayConfigInput, KeyConfigInput } from './gateway/config.ts'
export {
  BAD_REQUEST_COST,
  BATCH_ENVELOPE_COST,
  CREDIT_COSTS,
  DEFAULT_COST,
  DEFAULT_DAILY_CREDITS,
  UNKNOWN_METHOD_COST,
  methodCost,
  systemClock,
} from './gateway/credits.ts'
export type { Clock } from './gateway/credits.ts'
export { createControllableClock } from './gateway/clock.ts'
export type { ControllableClock } from './gateway/clock.ts'
export { MINING_MODES } from './gateway/control/types.ts'
export type {
  ClockInfo,
  ClockInput,
  ControllableChain,
  ExportedNetwork,
  ForkInput,
  GatewayControl,
  KeyInfo,
  MinedBlock,
  NetworkInfo,
  SnapshotInfo,
  QuotaInfo,
  UsageInfo,
  UsageTotals,
} from './gateway/control/types.ts'
export { ChainFeatureMissingError, ControlError, ControlInputError, ControlLimitError, ControlNotFoundError } from './gateway/controlError.ts'
export { DEFAULT_FAULT_SEED, FAULT_KINDS, FAULT_TRANSPORTS, KIND_STAGES, SERVER_ERROR_STATUSES, createPrng } from './gateway/faults.ts'
export type { Fault, FaultInput, FaultKind, FaultStage, FaultTransport } from './gateway/faults.ts'
export { REQUEST_LOG_LIMIT } from './gateway/requestLog.ts'
export { measureCredits } from './gateway/usage/budget.ts'
export type { CreditsSpent, Measured } from './gateway/usage/budget.ts'
export { USAGE_WINDOWS } from './gateway/usage/report.ts'
export type { UsageReport, UsageRow, UsageWindow } from './gateway/usage/report.ts'
export { ALERT_LEVELS } from './gateway/credits.ts'
export type { QuotaAlert } from './gateway/credits.ts'
export { PLANS } from './gateway/accounts.ts'
export type { AccountConfigInput } from './gateway/accounts.ts'
export type { LoggedCall, RequestLogEntry } from './gateway/requestLog.ts'
export * from './gateway/errors.ts'

// Chains: load a fixture folder, and drive mining, snapshots and forks (docs/sending-and-mining.md).
export { loadFixture } from './chain/loading/loadFixture.ts'
export type { LoadOptions } from './chain/loading/loadFixture.ts'
// A network's chain as a fixture folder, and Anvil state dumps (docs/your-chain.md).
export { exportChain, writeFixtureFolder } from './chain/loading/exportChain.ts'
export type { FixtureFolder } from './chain/loading/exportChain.ts'
export { dumpChainState, loadAnvilState, parseAnvilDump } from './chain/loading/anvilState.ts'
export type { AnvilDump } from './chain/loading/anvilState.ts'
export type { StateEdit } from './chain/vm/stateEdits.ts'
export { Chain } from './chain/chain.ts'
export type { ChainSource, EditedState, PendingTransaction } from './chain/chain.ts'
export { ChainSnapshot } from './chain/snapshot.ts'
export type { MiningMode } from './chain/mining/miner.ts'
export type { BlockRecord, BlockSelector, BlockTag } from './chain/blocks/types.ts'
export type { ChainClock } from './chain/clock.ts'
