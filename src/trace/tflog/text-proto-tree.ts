import { K_IDENT, K_NUMBER, TextProtoParser, type TextProtoVisitor } from './text-proto.js';

/** A scalar or nested message of a parsed text-format message. */
export type ProtoValue = number | string | boolean | ProtoObject;
/** A parsed message: a field given once holds its value, a field given several times an array. */
export interface ProtoObject {
  [field: string]: ProtoValue | ProtoValue[];
}

function put(obj: ProtoObject, name: string, value: ProtoValue): void {
  const prev = obj[name];
  if (prev === undefined) obj[name] = value;
  else if (Array.isArray(prev)) prev.push(value);
  else obj[name] = [prev, value];
}

/** Builds plain objects from the parser's calls (tests, small inputs; the log reader never does). */
class TreeBuilder implements TextProtoVisitor {
  readonly root: ProtoObject = {};
  private readonly stack: ProtoObject[] = [this.root];

  private get top(): ProtoObject {
    return this.stack[this.stack.length - 1] as ProtoObject;
  }

  enter(name: number, p: TextProtoParser): void {
    const child: ProtoObject = {};
    put(this.top, p.names.strings[name] as string, child);
    this.stack.push(child);
  }

  leave(): void {
    this.stack.pop();
  }

  scalar(name: number, p: TextProtoParser): void {
    let value: ProtoValue;
    if (p.kind === K_NUMBER) value = p.num;
    else if (p.kind === K_IDENT) value = p.boolValue() ?? (p.names.strings[p.ident] as string);
    else value = p.str;
    put(this.top, p.names.strings[name] as string, value);
  }
}

/**
 * Parses a text-format message body (`step_id: 2 tensor { dtype: DT_FLOAT }`) into plain objects:
 * numbers, strings (unescaped), `true`/`false` as booleans, enum values as their names. Throws a
 * `TextProtoError` with the byte offset of a syntax error.
 */
export function parseTextProto(text: string): ProtoObject {
  const bytes = Buffer.from(text, 'utf8');
  const tree = new TreeBuilder();
  new TextProtoParser().parseFields(bytes, 0, bytes.length, tree);
  return tree.root;
}
