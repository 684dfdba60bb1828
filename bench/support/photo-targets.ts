// The photo targets (R38, R39) against the figures of the photo scenarios. Reported, never enforced.
import type { PhotoFigures } from './photo-scenarios.ts';
import type { ScenarioRow, TargetCheck } from './report.ts';

const MiB = 1024 * 1024;
const rss = (peak: number | null | undefined): boolean | null => (peak === null || peak === undefined ? null : peak < 600);

export function checkPhotoTargets(rows: readonly ScenarioRow[], photos: PhotoFigures | undefined): TargetCheck[] {
  const byKey = (key: string) => rows.find((r) => r.key === key)?.figures;
  const four = byKey('photos4');
  const fifty = byKey('photos50');
  const checks: TargetCheck[] = [];
  const ok4 = four?.statuses['201'] ?? 0;
  checks.push({
    target: 'photos, 4 connections: only 201s',
    figure: four ? `${ok4} of ${four.responses} (${four.successPerSec} req/s)` : '-',
    met: four ? four.responses > 0 && ok4 === four.responses && four.unexpected === 0 : null,
  });
  checks.push({ target: 'photos, 4 connections: peak RSS < 600 MiB', figure: `${four?.peakRssMiB} MiB`, met: rss(four?.peakRssMiB) });
  const mean = photos?.gemini4?.meanBodyBytes;
  const quarter = photos === undefined ? undefined : photos.originalsBase64Bytes / 4;
  checks.push({
    target: 'photos, 4 connections: mean Gemini request < 1/4 of the four originals in base64',
    figure: mean === undefined || quarter === undefined ? '-' : `${(mean / MiB).toFixed(2)} MiB vs ${(quarter / MiB).toFixed(2)} MiB (x${(mean / (4 * quarter)).toFixed(3)} of the originals)`,
    met: mean === undefined || quarter === undefined || photos?.gemini4?.requests === 0 ? null : mean < quarter,
  });
  checks.push({
    target: 'photos, 50 connections: every answer within 15 s',
    figure: fifty ? `max ${fifty.latencyMs.max} ms, ${fifty.timeouts} timeouts, ${fifty.socketErrors} socket errors` : '-',
    met: fifty ? fifty.latencyMs.max < 15_000 && fifty.timeouts === 0 && fifty.socketErrors === 0 && fifty.unexpected === 0 : null,
  });
  const fast = fifty?.latencyMsByStatus['503'];
  checks.push({
    target: 'photos, 50 connections: 503s past the bounded queue are fast (p99 < 1 s)',
    figure: fifty ? `${fifty.statuses['503'] ?? 0} x 503, p99 ${fast?.p99 ?? '-'} ms; ${fifty.statuses['201'] ?? 0} x 201 (${fifty.successPerSec} req/s)` : '-',
    met: fifty ? fast === undefined || fast.p99 < 1000 : null,
  });
  checks.push({ target: 'photos, 50 connections: peak RSS < 600 MiB', figure: `${fifty?.peakRssMiB} MiB`, met: rss(fifty?.peakRssMiB) });
  const probe = photos?.healthz50;
  checks.push({
    target: 'photos, 50 connections: GET /healthz p99 < 250 ms',
    figure: probe
      ? `p99 ${probe.latencyMs.p99} ms, max ${probe.latencyMs.max} ms, ${probe.probes} probes, ${probe.failures} failed (idle: p99 ${photos?.healthzIdle?.latencyMs.p99} ms)`
      : '-',
    met: probe ? probe.probes > 0 && probe.failures === 0 && probe.latencyMs.p99 < 250 : null,
  });
  if (photos) {
    checks.push({
      target: 'normalization CPU per 12-megapixel photo (informative)',
      figure: `${photos.cpuMsPerPhoto.srgb} ms as made (sRGB profile); Display P3 ${photos.cpuMsPerPhoto.p3} ms; no profile ${photos.cpuMsPerPhoto.noProfile} ms`,
      met: null,
    });
  }
  return checks;
}
