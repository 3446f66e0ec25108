// Core's chain tests each start an anvil: the settings every anvil-starting package shares.
import { anvilTestConfig } from '../scripts/vitest-anvil';

export default anvilTestConfig;
