/**
 * The fixture source format: a `<name>.scenario.json` file that describes a chain in words a
 * person can read (named accounts, named contracts, function signatures, amounts in ether), from
 * which the builder produces the geth-format files the loader reads (`genesis.json`, `chain.rlp`,
 * `forkchoice.json`) plus an `accounts.json` index.
 *
 * Everything here is input: the types say what a source may contain, and the TSDoc on each field
 * is the format's reference. A small example:
 *
 * ```json
 * {
 *   "network": "ethereum", "chainId": 1,
 *   "genesis": { "timestamp": 1793491200, "gasLimit": 36000000, "baseFeePerGas": "1 gwei" },
 *   "accounts": { "alice": { "balance": "1000 ether" }, "bob": { "balance": "5 ether" } },
 *   "contracts": { "Token": { "source": "contracts/Token.sol" } },
 *   "blocks": [
 *     { "transactions": [
 *       { "from": "alice", "deploy": "Token", "args": ["1000000 ether"], "as": "token" },
 *       { "from": "alice", "to": "token", "call": "transfer(address,uint256)", "args": ["bob", "100 ether"], "type": 0 }
 *     ] }
 *   ],
 *   "safe": 1, "finalized": 0
 * }
 * ```
 *
 * Conventions used throughout:
 * - An {@link Amount} is a JSON integer, a decimal string (`"1000"`), a hex string (`"0x3e8"`) or
 *   a number with a unit: `"1.5 ether"`, `"30 gwei"`, `"21000 wei"`.
 * - An {@link AddressRef} is a `0x` address or the name of an account or of a deployed contract
 *   instance (`as`). Names are case-sensitive.
 * - Every object may carry a `"comment"` string, which the builder ignores. Any other unknown
 *   key is an error, so a misspelt field never silently does nothing.
 */

/** A quantity of wei (or gas, or a plain integer): `1000`, `"1000"`, `"0x3e8"`, `"1.5 ether"`, `"30 gwei"`. */
export type Amount = number | string

/** A `0x`-prefixed 20-byte address, or the name of an account or contract instance. */
export type AddressRef = string

/** The root object of a `<name>.scenario.json` file. */
export interface ScenarioSource {
  /** Output folder name under the fixtures directory, and the chain's name: `"ethereum"`, `"base"`. */
  network: string
  /** EIP-155 chain id written to `config.chainId` and signed into every transaction. */
  chainId: number
  /**
   * The fork whose rules the chain runs, from genesis on: `"paris"`, `"shanghai"`, `"cancun"`,
   * `"prague"` or `"osaka"` (the default). Mainnet at block 21,000,000 was Cancun. Solidity
   * sources are compiled for it too (solc's `evmVersion`).
   */
  hardfork?: 'paris' | 'shanghai' | 'cancun' | 'prague' | 'osaka'
  /** Header fields of block 0. */
  genesis: GenesisSource
  /**
   * Seconds between blocks when a block gives no `timestamp` (default 12). Mainnet has 12 s slots;
   * Base and Polygon produce a block every 2 s.
   */
  blockTime?: number
  /** Fee recipient (`coinbase`/`miner`) of every block after genesis. Default: a fixed address. */
  feeRecipient?: string
  /** `prevRandao` (`mixHash`) of every block after genesis, 32 bytes hex. Default: a fixed value. */
  prevRandao?: string
  /** `extraData` of every block after genesis, at most 32 bytes hex. Default: "gateway-double" in UTF-8. */
  extraData?: string
  /**
   * Default `maxPriorityFeePerGas` for type-2 transactions, and the tip on top of the base fee
   * used for the `gasPrice` of types 0 and 1. Default: a tenth of the block's base fee (at least 1 wei).
   */
  priorityFee?: Amount
  /** Accounts present at genesis, by name. Names double as addresses everywhere an address is expected. */
  accounts: Record<string, AccountSource>
  /** Contract code that transactions can deploy by name (`"deploy": "Token"`) or genesis accounts can hold. */
  contracts?: Record<string, ContractSource>
  /** Blocks 1..N, in order. */
  blocks: BlockSource[]
  /** Number of the block the `safe` tag names. Default: one behind the head (never below 0). */
  safe?: number
  /** Number of the block the `finalized` tag names. Default: two behind the head (never below 0). */
  finalized?: number
  comment?: string
}

/** Header fields of block 0, as a geth `genesis.json` has them. */
export interface GenesisSource {
  /**
   * Number of the genesis block, default 0. Any height works (`21000000`): `eth_blockNumber`
   * answers from it and contracts read `block.number` as it is there; block 1 of `blocks` is
   * genesis + 1.
   */
  number?: number
  /** Unix seconds. Required: a fixture never depends on the clock. */
  timestamp: number
  /** Block gas limit, kept by every later block. Default 36,000,000 (mainnet, 2026). */
  gasLimit?: Amount
  /** London base fee of block 0; later blocks follow EIP-1559 from it. Default "1 gwei". */
  baseFeePerGas?: Amount
  /** Genesis `extraData`, hex. Default `"0x"`. */
  extraData?: string
  /** Genesis `coinbase`. Default the zero address. */
  coinbase?: string
  /** Genesis `mixHash` (after the Merge, the block's `prevRandao`). Default the zero hash. */
  mixHash?: string
  /** The genesis block's parent hash, for a chain at a height (a captured block's real parent). Default the zero hash. */
  parentHash?: string
  /** Gas the genesis block used (a captured block's); the next base fee follows from it. Default 0. */
  gasUsed?: Amount
  /** From Cancun: the genesis block's excess blob gas, which sets its blob base fee. Default 0. */
  excessBlobGas?: Amount
  /** From Cancun: the blob gas the genesis block used. Default 0. */
  blobGasUsed?: Amount
  comment?: string
}

/**
 * An account at genesis. Which kind it is follows from its fields:
 * - a **signing account** (the default): its private key is `key`, or is derived from its name as
 *   `keccak256("gateway-double:" + name)`; it can send transactions (`"from"`);
 * - a **contract account**: it has `contract` (runtime code of a compiled contract) or `code`
 *   (raw runtime bytecode) and optional `storage`; no constructor runs, so set storage yourself;
 * - a **watch-only account**: it has `address` and no key; it can receive but not send.
 */
export interface AccountSource {
  /** Balance at genesis. Default 0. */
  balance?: Amount
  /** Private key, 32 bytes hex. These are test keys: never use them with real funds. */
  key?: string
  /** Fixed address. For signing accounts it must match the key. */
  address?: string
  /** Nonce at genesis. Default 0, or 1 for contract accounts (as EIP-161 gives deployed contracts). */
  nonce?: Amount
  /** Name of an entry in `contracts`, whose runtime code this account holds. */
  contract?: string
  /** Runtime bytecode, hex. */
  code?: string
  /** Storage slot → value, both amounts or 32-byte hex. Only for contract accounts. */
  storage?: Record<string, Amount>
  comment?: string
}

/** Contract code, from Solidity source (compiled with solc-js, pinned settings) or raw bytecode. */
export interface ContractSource {
  /** Path of a `.sol` file, relative to the scenario file. The contract is the one named like this entry, or `contractName`. */
  source?: string
  /** Name of the contract inside `source`, when it differs from this entry's name. */
  contractName?: string
  /** Creation bytecode, hex: what a deploy transaction sends (constructor arguments are appended). */
  bytecode?: string
  /** Runtime bytecode, hex, for genesis accounts that use this contract without `source`. */
  runtimeBytecode?: string
  /**
   * The ABI of raw-bytecode contracts: a JSON ABI, or human-readable signatures such as
   * `"constructor(uint256 supply)"`, `"function transfer(address,uint256)"`. Compiled contracts get theirs from solc.
   */
  abi?: unknown[]
  comment?: string
}

/** One block after genesis. */
export interface BlockSource {
  /** The block's number, as a check: it must be the parent's + 1 (the height comes from `genesis.number`). */
  number?: number
  /**
   * The block's gas limit. Default: the parent's. Within 1/1024 of the parent's, as consensus
   * allows (geth refuses other chains); the base fee follows EIP-1559 from the parent's gas used
   * and limit, so only the genesis base fee is chosen.
   */
  gasLimit?: Amount
  /** Unix seconds; must be after the parent's. Default: parent's timestamp + `blockTime`. */
  timestamp?: number
  /** Transactions in block order. Default none (an empty block). */
  transactions?: TransactionSource[]
  comment?: string
}

/**
 * A signed transaction. Exactly one of `deploy` (contract creation), `call` (ABI-encoded call),
 * `data` (raw calldata) may be given; with none, it is a plain value transfer to `to`.
 */
export interface TransactionSource {
  /** Name of the sending signing account. */
  from: string
  /** Recipient. Required unless `deploy` is given. */
  to?: AddressRef
  /** Name of an entry in `contracts` to create; `args` are its constructor arguments. */
  deploy?: string
  /** Name under which the created contract is known afterwards (`"to": "token"`, address arguments). */
  as?: string
  /** Function signature, `"transfer(address,uint256)"` (parameter names are allowed and ignored). */
  call?: string
  /** Arguments for `call` or `deploy`, JSON values per ABI type: amounts for integers, names for addresses, hex for bytes, arrays for arrays and tuples. */
  args?: unknown[]
  /** Raw calldata, hex, instead of `call`. */
  data?: string
  /** Wei sent with the transaction. Default 0. */
  value?: Amount
  /** 0 (legacy, EIP-155), 1 (EIP-2930 access list) or 2 (EIP-1559). Default 2. */
  type?: 0 | 1 | 2
  /** Gas limit. Default: estimated by trial runs against the state the transaction sees, as `eth_estimateGas` would. */
  gas?: Amount
  /** Types 0 and 1. Default: base fee + priority fee. */
  gasPrice?: Amount
  /** Type 2. Default: 2 × base fee + priority fee. */
  maxFeePerGas?: Amount
  /** Type 2. Default: the scenario's `priorityFee`. */
  maxPriorityFeePerGas?: Amount
  /** Types 1 and 2: addresses (or names) with storage keys (32-byte hex or amounts). */
  accessList?: { address: AddressRef; storageKeys?: Amount[] }[]
  /** Explicit nonce. Default: the sender's current nonce. */
  nonce?: Amount
  /** The transaction is mined but must fail (status 0): revert, out of gas, invalid opcode... Without it, a failure is a build error. */
  expectRevert?: boolean
  comment?: string
}
