/** Names of the pickle opcodes (as in CPython's Lib/pickle.py), for error messages. */
export const OPCODE_NAMES: Record<number, string> = {
  0x28: 'MARK', 0x2e: 'STOP', 0x30: 'POP', 0x31: 'POP_MARK', 0x32: 'DUP', 0x46: 'FLOAT', 0x49: 'INT',
  0x4a: 'BININT', 0x4b: 'BININT1', 0x4c: 'LONG', 0x4d: 'BININT2', 0x4e: 'NONE', 0x50: 'PERSID',
  0x51: 'BINPERSID', 0x52: 'REDUCE', 0x53: 'STRING', 0x54: 'BINSTRING', 0x55: 'SHORT_BINSTRING',
  0x56: 'UNICODE', 0x58: 'BINUNICODE', 0x61: 'APPEND', 0x62: 'BUILD', 0x63: 'GLOBAL', 0x64: 'DICT',
  0x7d: 'EMPTY_DICT', 0x65: 'APPENDS', 0x67: 'GET', 0x68: 'BINGET', 0x69: 'INST', 0x6a: 'LONG_BINGET',
  0x6c: 'LIST', 0x5d: 'EMPTY_LIST', 0x6f: 'OBJ', 0x70: 'PUT', 0x71: 'BINPUT', 0x72: 'LONG_BINPUT',
  0x73: 'SETITEM', 0x74: 'TUPLE', 0x29: 'EMPTY_TUPLE', 0x75: 'SETITEMS', 0x47: 'BINFLOAT',
  0x80: 'PROTO', 0x81: 'NEWOBJ', 0x82: 'EXT1', 0x83: 'EXT2', 0x84: 'EXT4', 0x85: 'TUPLE1', 0x86: 'TUPLE2',
  0x87: 'TUPLE3', 0x88: 'NEWTRUE', 0x89: 'NEWFALSE', 0x8a: 'LONG1', 0x8b: 'LONG4', 0x42: 'BINBYTES',
  0x43: 'SHORT_BINBYTES', 0x8c: 'SHORT_BINUNICODE', 0x8d: 'BINUNICODE8', 0x8e: 'BINBYTES8',
  0x8f: 'EMPTY_SET', 0x90: 'ADDITEMS', 0x91: 'FROZENSET', 0x92: 'NEWOBJ_EX', 0x93: 'STACK_GLOBAL',
  0x94: 'MEMOIZE', 0x95: 'FRAME', 0x96: 'BYTEARRAY8', 0x97: 'NEXT_BUFFER', 0x98: 'READONLY_BUFFER',
};

/** Opcodes that import, construct or call something, and what each would do. */
export const REFUSED: Record<number, string> = {
  0x63: 'import a Python object by name',
  0x93: 'import a Python object by name',
  0x52: 'call a function',
  0x62: "set an object's state (a call of __setstate__)",
  0x69: 'import a class and construct an instance',
  0x6f: 'construct an instance of a class',
  0x81: 'construct an instance of a class (cls.__new__)',
  0x92: 'construct an instance of a class (cls.__new__ with keyword arguments)',
  0x82: 'load an object from the extension registry',
  0x83: 'load an object from the extension registry',
  0x84: 'load an object from the extension registry',
  0x50: 'load a persistent object through a callback',
  0x51: 'load a persistent object through a callback',
  0x97: 'read an out-of-band buffer',
  0x98: 'make a buffer read-only (out-of-band buffers)',
};
