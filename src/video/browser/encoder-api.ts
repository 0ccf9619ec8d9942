/**
 * What the encoder page's code (encoder-page.ts, run in the browser) and the video's Node side (../encoder.ts) share:
 * the page's interface and what it hands over. Types only, without the DOM's: both programs compile this file.
 */

/** What the page's VideoEncoder is configured with (a subset of WebCodecs' `VideoEncoderConfig`). */
export interface EncoderConfig {
  codec: string;
  width: number;
  height: number;
  framerate: number;
  bitrate: number;
  latencyMode: 'quality' | 'realtime';
  avc?: { format: 'avc' | 'annexb' };
}

/**
 * The decoder configuration of the first packet (and of a change), its bytes base64. It crosses to Node as JSON, so
 * a field the browser left undefined is absent.
 */
export interface PacketConfig {
  codec: string;
  codedWidth?: number;
  codedHeight?: number;
  description?: string;
  /** WebCodecs' `VideoColorSpaceInit`, its names as TypeScript's DOM lib has them. */
  colorSpace?: {
    primaries?: 'bt470bg' | 'bt709' | 'smpte170m' | null;
    transfer?: 'bt709' | 'iec61966-2-1' | 'smpte170m' | null;
    matrix?: 'bt470bg' | 'bt709' | 'rgb' | 'smpte170m' | null;
    fullRange?: boolean | null;
  };
}

/** One encoded packet, its bytes base64; times in µs. */
export interface Packet {
  data: string;
  key: boolean;
  timestamp: number;
  duration: number;
  config?: PacketConfig;
}

/** What a call hands back: the packets made since the last call, or the encoder's failure. */
export interface Taken {
  failure: string | null;
  packets: Packet[];
}

/**
 * The encoder page's interface. Frames may arrive out of order (each is sent once captured): each JPEG is decoded as
 * it arrives, and the frames are drawn and encoded in index order. A frame's call returns once its frame is given to
 * the encoder, with the packets made so far.
 */
export interface EncoderPageApi {
  /** Starts the encoder at `width`×`height`; '' when started, else why this browser cannot. */
  start(width: number, height: number, config: EncoderConfig): Promise<string>;
  /** Frame `index`: the JPEG (base64) drawn letterboxed on black, shown from `timestamp` for `duration` (µs). */
  frame(index: number, jpeg: string, timestamp: number, duration: number, keyFrame: boolean): Promise<Taken>;
  /** Frame `index`: the frame before it encoded again, shown from `timestamp` for `duration` (µs). */
  again(index: number, timestamp: number, duration: number, keyFrame: boolean): Promise<Taken>;
  /** Flushes and closes the encoder: the last packets. */
  finish(): Promise<Taken>;
}

/** The page's global through which the Node side reaches its interface. */
export interface EncoderPageGlobal {
  __video: EncoderPageApi;
}
