// The production path with phone photos (R38, R39): the service with REPORT_GENERATOR=gemini
// (the real @google/genai adapter) against a local fake Gemini, each request naming four
// 12-megapixel JPEGs of 3 to 6 MB with EXIF and GPS. Two loads: 4 connections (what this machine
// sustains: only 201s) and 50 (overload: bounded answers, fast 503s, /healthz still quick).
// Also the CPU cost of normalizing one photo, measured here with the service's own normalizer.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AutocannonRequestStep } from 'autocannon';
import sharp from 'sharp';
import { SharpImageNormalizer } from '../../src/images/sharp-normalizer.ts';
import { startBenchGemini, type BenchGemini } from './fake-gemini.ts';
import { startHealthProber, type ProbeFigures } from './health-prober.ts';
import { round } from './round.ts';
import type { LoadFigures, LoadSpec } from './load.ts';
import { makePhotos, startPhotoServer, type Photo, type PhotoServer } from './photos.ts';
import type { NodeChild } from './processes.ts';
import { imageRequest, REPORTS_PATH } from './workload.ts';

export interface PhotoScenarioContext {
  readonly scenario: (key: string, label: string, target: NodeChild, spec: Partial<LoadSpec> & Pick<LoadSpec, 'requests' | 'expected'>) => Promise<LoadFigures>;
  readonly startService: (name: string, env: Record<string, string>) => Promise<NodeChild>;
  readonly stopService: (child: NodeChild) => Promise<void>;
  /** The bench's service environment (database, log level, rate limit, allowed image host). */
  readonly serviceEnv: Record<string, string>;
  readonly apiKey: string;
  readonly log: (message: string) => void;
}

export interface GeminiRequestFigures {
  readonly requests: number;
  readonly meanBodyBytes: number;
  readonly maxBodyBytes: number;
}

export interface PhotoFigures {
  readonly photoBytes: readonly number[];
  /** The four originals in base64: what each Gemini request carried before normalization. */
  readonly originalsBase64Bytes: number;
  /**
   * CPU (all threads) to normalize one photo, one at a time: as made (EXIF and the sRGB ICC
   * profile libvips writes with it), with a Display P3 profile instead (iPhones), with none.
   */
  readonly cpuMsPerPhoto: { readonly srgb: number; readonly p3: number; readonly noProfile: number };
  readonly gemini4?: GeminiRequestFigures;
  readonly gemini50?: GeminiRequestFigures;
  readonly healthz50?: ProbeFigures;
  /** The same probe on the same process for 3 s before the load: what the machine gives an idle service. */
  readonly healthzIdle?: ProbeFigures;
}

const ICC_MARK = Buffer.from('ICC_PROFILE\0', 'latin1');

/** The photo without its ICC profile segments (APP2 ICC_PROFILE), everything else as it was. */
function withoutProfile(photo: Buffer): Buffer {
  const kept: Buffer[] = [photo.subarray(0, 2)];
  let at = 2;
  while (at + 4 <= photo.length && photo[at] === 0xff && photo[at + 1] !== 0xda) {
    const end = at + 2 + photo.readUInt16BE(at + 2);
    if (!(photo[at + 1] === 0xe2 && photo.subarray(at + 4, at + 4 + ICC_MARK.length).equals(ICC_MARK))) kept.push(photo.subarray(at, end));
    at = end;
  }
  return Buffer.concat([...kept, photo.subarray(at)]);
}

/** The photo with a Display P3 profile in place of its own, as iPhones write them. */
async function withP3(photo: Buffer): Promise<Buffer> {
  const { icc } = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } }).jpeg().withIccProfile('p3').toBuffer().then((b) => sharp(b).metadata());
  if (icc === undefined) throw new Error('no P3 profile');
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xffe2, 0);
  head.writeUInt16BE(2 + 14 + icc.length, 2);
  const bare = withoutProfile(photo);
  return Buffer.concat([bare.subarray(0, 2), head, ICC_MARK, Buffer.from([1, 1]), icc, bare.subarray(2)]);
}

async function cpuMsPerPhoto(photos: readonly Buffer[], rounds = 3): Promise<number> {
  const normalizer = new SharpImageNormalizer({ maxDimension: 2048, maxPixels: 40_000_000 });
  await normalizer.normalize(photos[0]!, 'image/jpeg'); // loads the decoders
  const before = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const photo of photos) await normalizer.normalize(photo, 'image/jpeg');
  const used = process.cpuUsage(before);
  return round((used.user + used.system) / 1000 / (rounds * photos.length), 1);
}

function requestFigures(gemini: BenchGemini): GeminiRequestFigures {
  const { requests, bodyBytes, maxBodyBytes } = gemini.stats();
  return { requests, meanBodyBytes: requests === 0 ? 0 : Math.round(bodyBytes / requests), maxBodyBytes };
}

export async function runPhotoScenarios(ctx: PhotoScenarioContext): Promise<PhotoFigures> {
  ctx.log('making four 12-megapixel photos of 3 to 6 MB (EXIF with GPS) ...');
  const photos: Photo[] = await makePhotos();
  const bytes = photos.map((p) => p.bytes);
  const originalsBase64Bytes = bytes.reduce((sum, b) => sum + 4 * Math.ceil(b.length / 3), 0);
  ctx.log(`photos: ${bytes.map((b) => (b.length / 1e6).toFixed(2)).join(', ')} MB; measuring the CPU of normalization ...`);
  const cpu = {
    srgb: await cpuMsPerPhoto(bytes),
    p3: await cpuMsPerPhoto(await Promise.all(bytes.map(withP3))),
    noProfile: await cpuMsPerPhoto(bytes.map(withoutProfile)),
  };
  ctx.log(`normalization: ${cpu.srgb} ms CPU per photo (Display P3 profile: ${cpu.p3} ms, no profile: ${cpu.noProfile} ms)`);

  let server: PhotoServer | undefined;
  let gemini: BenchGemini | undefined;
  const figures: { -readonly [K in keyof PhotoFigures]: PhotoFigures[K] } = { photoBytes: bytes.map((b) => b.length), originalsBase64Bytes, cpuMsPerPhoto: cpu };
  try {
    server = await startPhotoServer(photos);
    gemini = await startBenchGemini();
    const env = { ...ctx.serviceEnv, REPORT_GENERATOR: 'gemini', GEMINI_API_KEY: 'bench-gemini-key', GEMINI_BASE_URL: gemini.baseUrl };
    const step: AutocannonRequestStep = {
      method: 'POST',
      path: REPORTS_PATH,
      headers: { 'content-type': 'application/json', 'x-api-key': ctx.apiKey },
      body: JSON.stringify(imageRequest(server.urls)),
    };

    let service = await ctx.startService('service (gemini, photos)', env);
    await ctx.scenario('photos4', 'Gemini, 4 photos of 3-6 MB, 4 connections', service, {
      connections: 4,
      requests: [step],
      readErrorCodes: true,
      timeoutS: 20,
      expected: (status) => status === 201,
    });
    figures.gemini4 = requestFigures(gemini);
    await ctx.stopService(service);

    gemini.reset();
    service = await ctx.startService('service (gemini, photos, overload)', env);
    const idle = startHealthProber(service.url);
    await sleep(3_000);
    figures.healthzIdle = await idle.stop();
    const prober = startHealthProber(service.url);
    try {
      await ctx.scenario('photos50', 'Gemini, 4 photos of 3-6 MB, 50 connections', service, {
        connections: 50,
        requests: [step],
        readErrorCodes: true,
        // An answer after 15 s misses the target; one after 20 s is counted as a timeout (unexpected).
        timeoutS: 20,
        // 503s are the designed overload answers: the image boundary's (R38, R39) and admission
        // control's refusal of a saturated instance (R52).
        expected: (status, code) => status === 201 || (status === 503 && (code === 'remote_evidence_image_unavailable' || code === 'report_generation_unavailable')),
      });
    } finally {
      figures.healthz50 = await prober.stop();
    }
    figures.gemini50 = requestFigures(gemini);
    ctx.log(
      `GET /healthz during the overload: p99 ${figures.healthz50.latencyMs.p99} ms over ${figures.healthz50.probes} probes ` +
        `(idle before it: p99 ${figures.healthzIdle.latencyMs.p99} ms)`,
    );
    await ctx.stopService(service);
  } finally {
    await server?.close();
    await gemini?.close();
  }
  return figures;
}
