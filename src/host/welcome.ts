import type { Logger } from '../core/ports';
import type { MementoLike } from './runIndex';

/** The walkthrough contributed in package.json (`contributes.walkthroughs`). */
export const WALKTHROUGH_ID = 'cortex.gettingStarted';
/** globalState flag: this profile has had its first start (synced, so other machines skip it too). */
export const GREETED_KEY = 'cortex.greeted';

export type GreetingOutcome = 'opened' | 'already-greeted' | 'turned-off' | 'failed';

export interface GreetingPorts {
  state: MementoLike;
  /** VS Code's `workbench.welcomePage.walkthroughs.openOnInstall`: false means never open one unasked. */
  walkthroughsOpenOnInstall(): boolean;
  /** `workbench.action.openWalkthrough` with `<publisher>.<name>#<walkthrough id>`. */
  openWalkthrough(id: string): PromiseLike<unknown>;
  logger: Logger;
}

/**
 * On the first start in a profile, opens the "Get started with Cortex" walkthrough (endpoint, API
 * key, first task). The flag is set before opening, so a failure or a reload never greets twice;
 * it is always reachable later from the Welcome page.
 */
export async function greetOnFirstStart(extensionId: string, ports: GreetingPorts): Promise<GreetingOutcome> {
  if (ports.state.get(GREETED_KEY) === true) return 'already-greeted';
  await ports.state.update(GREETED_KEY, true);
  if (!ports.walkthroughsOpenOnInstall()) {
    ports.logger.info('First start in this profile; not opening the walkthrough (workbench.welcomePage.walkthroughs.openOnInstall is off).');
    return 'turned-off';
  }
  const id = `${extensionId}#${WALKTHROUGH_ID}`;
  try {
    await ports.openWalkthrough(id);
  } catch (error) {
    ports.logger.warn(`Could not open the walkthrough ${id}: ${(error as Error).message}`);
    return 'failed';
  }
  ports.logger.info(`First start in this profile: opened the walkthrough ${id}.`);
  return 'opened';
}
