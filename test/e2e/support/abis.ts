/** The fixture contracts' ABIs, as the package exports them (gateway-double/fixtures). */
export { counterAbi, reverterAbi, tokenAbi } from '../../../src/fixtures/abis.ts'
