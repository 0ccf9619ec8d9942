/** One replay of `samples/index.json` (paths relative to `samples/`). */
export interface SampleReplay {
  name: string;
  replay_id: string;
  device_id: string;
  session_id: string;
  platform_id: number;
  start_time: string;
  end_time: string;
  retention_in_days: number;
  event_count: number;
  expected: string;
  files: { '3': string[]; '2': string[] };
}

export interface SampleCatalogue {
  replays: SampleReplay[];
}
