/**
 * Chrome's V8 profile events as it writes them in a Perfetto trace, for tests: the sampled
 * thread's sequence (1) holds the Profile, the profiler thread's the chunks; names and the
 * annotation name interned per sequence; track_uuid 0 meaning "this sequence's thread"; the
 * Profile and its chunks joined by legacy event id 7.
 */
export type Msg = Record<string, any>;

/** A thread's sequence as Chrome starts it: its track, then its defaults and interned names. */
export function v8ProfileThread(
  seq: number,
  uuid: number,
  tid: number,
  name: string,
  clockId = 3,
): Msg[] {
  return [
    {
      trusted_packet_sequence_id: seq,
      sequence_flags: 1,
      track_descriptor: { uuid, thread: { pid: 9, tid, thread_name: name } },
    },
    {
      trusted_packet_sequence_id: seq,
      sequence_flags: 2,
      trace_packet_defaults: {
        timestamp_clock_id: clockId,
        track_event_defaults: { track_uuid: uuid },
      },
      interned_data: {
        event_names: [{ iid: 1, name: seq === 1 ? "Profile" : "ProfileChunk" }],
        debug_annotation_names: [{ iid: 1, name: "data" }],
      },
    },
  ];
}

/** A Profile (sequence 1) or ProfileChunk event, `annotation` being its `data` value's fields. */
export function v8ProfileEvent(seq: number, tsUs: number, annotation: Msg): Msg {
  return {
    trusted_packet_sequence_id: seq,
    sequence_flags: 2,
    timestamp: tsUs * 1000,
    track_event: {
      name_iid: 1,
      track_uuid: 0,
      category_iids: [],
      debug_annotations: [{ name_iid: 1, ...annotation }],
      legacy_event: { phase: 80, unscoped_id: 7 },
    },
  };
}
