/** What install_model needs of the model registry: jobs/ calls it, services/ implements it. */
import type { DownloadProgress, DownloadResult } from '../embedding/hub-download.js';
import type { SafeFetcher } from '../scraping/safe-fetcher.js';

/** What to download where, for one install. */
export interface InstallPlan {
  repo: string;
  revision: string;
  destDir: string;
  stagingDir: string;
  /** The files are in place already (another model of the same repo@revision installed them). */
  present: boolean;
  /** Ends this install's hold on the directory (another install of it may then start). */
  release(): void;
}

/** What the job needs of the model registry; ModelInstallService implements it. */
export interface ModelInstaller {
  readonly hub: { fetcher: SafeFetcher; url: string; idleTimeoutMs: number };
  /**
   * Takes the model for this job, once no other install of its directory runs: null when the
   * model is gone or no longer waits for this job (cancelled, or installed again since).
   */
  beginInstall(modelId: number, jobId: number): Promise<InstallPlan | null>;
  installProgress(modelId: number, jobId: number, p: DownloadProgress): void;
  /** The files are in place: reads config.json and the size on disk; status installed. */
  completeInstall(modelId: number, jobId: number, download: DownloadResult | null): Promise<void>;
  /** Status error with the reason; no half-installed directory is left. */
  failInstall(modelId: number, jobId: number, message: string): Promise<void>;
  /** Cancelled: not installed, the partial files kept for a later install to resume. */
  cancelInstall(modelId: number, jobId: number): void;
  /** The server stops: the model stays downloading until the job resumes. */
  pauseInstall(modelId: number, jobId: number): void;
}
