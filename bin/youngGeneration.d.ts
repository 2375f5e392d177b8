/** ./youngGeneration.js, for the bench's server (bench/gatewayServer.ts), which runs as the command does. */
export declare const NEW_SPACE_CAP_BYTES: number
export declare function capYoungGeneration(capBytes?: number): void
export declare function withFlagsAsAtStart<T>(make: () => T): T
