// The data limit, one rule for every place that judges it: the usage job (restrict, lift),
// an update of a peer (a raised or cleared limit lifts its reason), the store's query of
// peers over their limit, and the metrics. A limit of 0 is no limit; a peer is over once its
// month's usage reaches the limit (equal is over).

/** Bytes in one GB of dataLimitGB (DESIGN.md: 1 GB = 1,073,741,824 bytes, 2^30). */
export const GB = 1_073_741_824;

/** True when `usageBytes` has reached a limit of `dataLimitGB` (0: no limit). */
export function isOverLimit(usageBytes: number, dataLimitGB: number): boolean {
  return dataLimitGB > 0 && usageBytes >= dataLimitGB * GB;
}

/** The same rule in SQL, over two column expressions (`u.usage_bytes`, `p.data_limit_gb`). */
export function overLimitSql(usageBytes: string, dataLimitGB: string): string {
  return `(${dataLimitGB} > 0 AND ${usageBytes} >= ${dataLimitGB} * ${GB})`;
}
