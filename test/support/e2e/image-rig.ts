// What the image-evidence tests start before the service: the local image host and a fake
// Gemini, closed together once the service is closed (use-service.ts: declare `after` below it).
import { startFakeGemini, type FakeGemini } from '../generation/fake-gemini-server.ts';
import type { ImageServer } from '../images/image-server.ts';
import { startImageHost } from './image-host.ts';

export interface ImageRig {
  readonly host: ImageServer;
  readonly gemini: FakeGemini;
  close(): Promise<void>;
}

export async function startImageRig(): Promise<ImageRig> {
  const host = await startImageHost();
  const gemini = await startFakeGemini();
  return {
    host,
    gemini,
    close: async () => {
      await gemini.stop();
      await host.close();
    },
  };
}
