/** Whether a text is an IANA time zone this runtime knows (UTC, Europe/Paris, America/New_York...). */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
