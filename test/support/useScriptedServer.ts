import { startScriptedServer, type Handler, type ScriptedServer, type ScriptedServerOptions } from './scriptedServer';

/** The scripted server of the running test; `restart` swaps it for one with other options. */
export interface ScriptedServerSlot {
  (): ScriptedServer;
  /** Closes the test's server and starts another (another API key, other models…). */
  restart(handler?: Handler, options?: ScriptedServerOptions): Promise<ScriptedServer>;
}

/**
 * A fresh scripted server for every test of the calling suite: started before each test, closed
 * after it (which fails the test if a handler threw). Call it inside `describe`.
 */
export function useScriptedServer(): ScriptedServerSlot {
  let server: ScriptedServer | undefined;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    const current = server;
    server = undefined;
    await current?.close();
  });
  const slot = () => {
    if (!server) throw new Error('the scripted server only runs while a test of this suite runs');
    return server;
  };
  slot.restart = async (handler?: Handler, options?: ScriptedServerOptions) => {
    await server?.close();
    server = await startScriptedServer(handler, options);
    return server;
  };
  return slot;
}
