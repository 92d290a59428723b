// A model turn's reasoning text as kept for the trace: a reasoning model can think for hundreds of
// kilobytes per turn, so only the beginning and the end are kept (where the approach and the
// conclusion are), with a marker saying how much of the middle was left out. Streamed pieces are
// added as they come; memory stays bounded by the cap whatever the model sends.

/** Characters kept from each end of a turn's reasoning. */
export const REASONING_KEEP_CHARS = 8_000;

export class ReasoningText {
  private head = '';
  private tail = '';
  private dropped = 0;

  push(piece: string): void {
    if (this.head.length < REASONING_KEEP_CHARS) {
      const take = piece.slice(0, REASONING_KEEP_CHARS - this.head.length);
      this.head += take;
      piece = piece.slice(take.length);
    }
    if (piece === '') return;
    this.tail += piece;
    // Trimmed once it is twice the cap, so long streams are not re-sliced on every piece.
    if (this.tail.length > 2 * REASONING_KEEP_CHARS) {
      const cut = this.tail.length - REASONING_KEEP_CHARS;
      this.dropped += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  isEmpty(): boolean {
    return this.head === '';
  }

  text(): string {
    let tail = this.tail;
    let dropped = this.dropped;
    if (tail.length > REASONING_KEEP_CHARS) {
      dropped += tail.length - REASONING_KEEP_CHARS;
      tail = tail.slice(tail.length - REASONING_KEEP_CHARS);
    }
    return dropped > 0 ? `${this.head}\n[... ${dropped} characters of reasoning left out ...]\n${tail}` : this.head + tail;
  }
}
