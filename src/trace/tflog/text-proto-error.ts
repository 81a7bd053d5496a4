/** A syntax error at byte `pos` of the parsed buffer. */
export class TextProtoError extends Error {
  override name = 'TextProtoError';
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}
