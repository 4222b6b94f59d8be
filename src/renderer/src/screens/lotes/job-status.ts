// How the Lotes screen tells a bulk job's state, shared by its panel and the jobs table.
import type { BulkJobView } from '../../../../shared/api/bulk';
import type { Tone } from '../../components/ui';

/** The job's status as the screen tells it: a job left "running" by a closed app (or a killed CLI) is interrupted. */
export type Shown = BulkJobView['status'] | 'interrupted';

export function shownStatus(job: BulkJobView): Shown {
  return job.status === 'running' && !job.active && !job.runningElsewhere ? 'interrupted' : job.status;
}

export const STATUS_TONE: Record<Shown, Tone> = {
  pending: 'info',
  running: 'accent',
  paused: 'warning',
  interrupted: 'warning',
  out_of_credits: 'danger',
  completed: 'success',
  cancelled: 'neutral',
};

export function percentOf(job: BulkJobView): number {
  return job.progress.total === 0 ? 100 : Math.floor((job.progress.done * 1000) / job.progress.total) / 10;
}
