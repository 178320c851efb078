/**
 * Writing the Prometheus text exposition format (version 0.0.4) as the Go client
 * (`client_golang`) writes it: `# HELP` and `# TYPE` once per family, label pairs sorted by
 * name, numbers in Go's shortest `%g` form (`1e-08`, `0.005`, `1e+06`), histograms as
 * `_bucket{le}`, `_sum`, `_count`. Internal.
 * @module
 */

/** A metric family's type. */
export type MetricType = "counter" | "gauge" | "summary" | "histogram";

/** Label names and values of one series. */
export type Labels = Readonly<Record<string, string>>;

/**
 * A number as client_golang writes a sample value: Go's `strconv.FormatFloat(v, 'g', -1, 64)`,
 * the shortest digits that read back the same, in exponent form (sign, at least two exponent
 * digits: `1e-08`, `1.5e+06`) when the exponent is below -4 or at least 6, else plain
 * (`0.005`, `123456`); `NaN`, `+Inf`, `-Inf`; `0` for zero. Counts (`_count`, bucket counts)
 * are integers and written as such.
 */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  if (value === 0) return "0";
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(value);
  return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** `{a="1",b="2"}` (names sorted when `sort`), or `""` without labels. */
export function formatLabels(labels: Labels, sort = true): string {
  const names = sort ? Object.keys(labels).sort() : Object.keys(labels);
  if (names.length === 0) return "";
  return `{${names.map((n) => `${n}="${escapeLabelValue(labels[n]!)}"`).join(",")}}`;
}

/** One family: its samples, each a series (labels) and a value. */
interface Family {
  readonly type: MetricType;
  readonly help: string;
  readonly lines: { readonly sortKey: string; readonly text: string }[];
}

/**
 * Collects families and writes them. With `clientGolang` (the default) as client_golang's
 * registry gathers them: families in name order, each family's series in label order, label
 * names sorted, a family without samples left out. Without it: in the order given, labels as
 * given, every declared family with its HELP and TYPE.
 */
export class Exposition {
  readonly #families = new Map<string, Family>();
  readonly #golang: boolean;

  constructor(options: { clientGolang?: boolean } = {}) {
    this.#golang = options.clientGolang ?? true;
  }

  #family(name: string, type: MetricType, help: string): Family {
    let family = this.#families.get(name);
    if (family === undefined) {
      family = { type, help, lines: [] };
      this.#families.set(name, family);
    }
    return family;
  }

  /** Declares a family (so its HELP and TYPE come out even when it has no samples yet). */
  declare(name: string, type: MetricType, help: string): void {
    this.#family(name, type, help);
  }

  /** One counter or gauge sample. */
  sample(name: string, type: MetricType, help: string, labels: Labels, value: number): void {
    const key = formatLabels(labels, this.#golang);
    this.#family(name, type, help).lines.push({
      sortKey: key,
      text: `${name}${key} ${formatValue(value)}`,
    });
  }

  /**
   * One histogram series: cumulative `counts` per upper bound of `buckets` (ascending), then
   * `+Inf`, `_sum` and `_count`.
   */
  histogram(
    name: string,
    help: string,
    labels: Labels,
    buckets: readonly number[],
    counts: readonly number[],
    sum: number,
    count: number,
  ): void {
    const family = this.#family(name, "histogram", help);
    const sort = this.#golang;
    const key = formatLabels(labels, sort);
    const lines: string[] = [];
    let cumulative = 0;
    // client_golang writes `le` after the series' own labels, whatever their names.
    const open = `${name}_bucket${key === "" ? "{" : `${key.slice(0, -1)},`}le="`;
    const bucket = (le: string): string => `${open}${le}"}`;
    buckets.forEach((le, i) => {
      cumulative += counts[i] ?? 0;
      lines.push(`${bucket(formatValue(le))} ${cumulative}`);
    });
    lines.push(`${bucket("+Inf")} ${count}`);
    lines.push(`${name}_sum${key} ${formatValue(sum)}`);
    lines.push(`${name}_count${key} ${count}`);
    family.lines.push({ sortKey: key, text: lines.join("\n") });
  }

  /** The text: per family HELP, TYPE, then samples; ends with a newline (empty: ""). */
  text(): string {
    const out: string[] = [];
    const names = [...this.#families.keys()];
    for (const name of this.#golang ? names.sort() : names) {
      const family = this.#families.get(name)!;
      if (this.#golang && family.lines.length === 0) continue;
      out.push(`# HELP ${name} ${escapeHelp(family.help)}`);
      out.push(`# TYPE ${name} ${family.type}`);
      const lines = this.#golang
        ? [...family.lines].sort((a, b) =>
          a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0
        )
        : family.lines;
      for (const line of lines) out.push(line.text);
    }
    return out.length === 0 ? "" : out.join("\n") + "\n";
  }
}

/**
 * Observations of one histogram series: counts per bucket (not cumulative), sum and count.
 */
export class HistogramData {
  readonly buckets: readonly number[];
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(buckets: readonly number[]) {
    this.buckets = buckets;
    this.counts = buckets.map(() => 0);
  }

  /** Adds one observation. */
  observe(value: number): void {
    this.sum += value;
    this.count++;
    const i = this.buckets.findIndex((le) => value <= le);
    if (i >= 0) this.counts[i]!++;
  }
}
