// Each test file starts anvils: the settings every anvil-starting package shares.
import { anvilTestConfig } from '../scripts/vitest-anvil';

export default anvilTestConfig;
