// The quota period: a UTC calendar month, start inclusive, end exclusive (spec section 8).

export interface MonthPeriod {
  startsAt: Date;
  endsAt: Date;
}

/** The UTC month containing `date`. Date.UTC rolls month 12 over to January of the next year. */
export function monthPeriod(date: Date): MonthPeriod {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return { startsAt: new Date(Date.UTC(year, month, 1)), endsAt: new Date(Date.UTC(year, month + 1, 1)) };
}
