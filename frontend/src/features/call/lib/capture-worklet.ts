/**
 * The microphone's AudioWorklet (loaded by lib/microphone.ts through Vite as a module of its
 * own): on the audio thread, each render quantum of the first input channel goes through the
 * CaptureEncoder (down to 16 kHz, μ-law, 100 ms frames), and every finished frame is posted
 * to the page with its loudness. The output stays silent; it exists so that the graph pulls
 * this node.
 */
import { CaptureEncoder, type CapturedFrame } from '@/features/call/lib/capture-encoder';

// The AudioWorkletGlobalScope, which TypeScript's DOM library does not describe.
interface WorkletProcessor {
  readonly port: MessagePort;
}
declare const AudioWorkletProcessor: { prototype: WorkletProcessor; new (): WorkletProcessor };
declare function registerProcessor(name: string, processor: new () => WorkletProcessor): void;
declare const sampleRate: number;

// The name lib/microphone.ts creates the node by.
const CAPTURE_PROCESSOR = 'amora-call-capture';

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly encoder = new CaptureEncoder(sampleRate);

  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0];
    if (channel) {
      for (const frame of this.encoder.push(channel)) {
        // The frame's bytes move to the page rather than being copied.
        this.port.postMessage(frame satisfies CapturedFrame, [frame.audio.buffer as ArrayBuffer]);
      }
    }
    // Keep running while the page holds the node.
    return true;
  }
}

registerProcessor(CAPTURE_PROCESSOR, CaptureProcessor);
