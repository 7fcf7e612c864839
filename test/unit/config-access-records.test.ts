import { describe, expect, it } from 'vitest';
import { parseWorkingDays } from '../../src/config/access-records.js';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('access records configuration', () => {
  it('keeps records two years (of 366 days), sweeps hourly, and reviews 09:00–19:00 in Asia/Seoul', () => {
    expect(loadConfig({}).accessRecords).toEqual({
      retentionDays: 732,
      sweepIntervalMs: 3_600_000,
      workingHours: { start: 540, end: 1140, text: '09:00-19:00' },
      workingDays: { days: [1, 2, 3, 4, 5], text: 'mon-fri' },
      timeZone: 'Asia/Seoul',
    });
  });

  it('takes years or days, other hours and another zone', () => {
    const config = loadConfig({
      ACCESS_RECORD_RETENTION: '400d',
      ACCESS_RECORD_SWEEP_INTERVAL_MINUTES: '15',
      CONSOLE_WORKING_HOURS: '08:30-24:00',
      CONSOLE_WORKING_DAYS: 'Sun-Thu',
      CONSOLE_TIME_ZONE: 'Europe/Berlin',
    }).accessRecords;
    expect(config).toEqual({
      retentionDays: 400,
      sweepIntervalMs: 900_000,
      workingHours: { start: 510, end: 1440, text: '08:30-24:00' },
      workingDays: { days: [1, 2, 3, 4, 7], text: 'Sun-Thu' },
      timeZone: 'Europe/Berlin',
    });
    expect(loadConfig({ ACCESS_RECORD_RETENTION: '3Y' }).accessRecords.retentionDays).toBe(1098);
    expect(loadConfig({ ACCESS_RECORD_RETENTION: '365d' }).accessRecords.retentionDays).toBe(365);
  });

  it.each([
    ['mon-fri', [1, 2, 3, 4, 5]],
    ['mon,wed,fri', [1, 3, 5]],
    ['mon-thu, sat', [1, 2, 3, 4, 6]],
    ['fri-mon', [1, 5, 6, 7]],
    ['sun', [7]],
    ['mon-sun', [1, 2, 3, 4, 5, 6, 7]],
  ])('reads CONSOLE_WORKING_DAYS=%s as the ISO weekdays %j', (text, days) => {
    expect(parseWorkingDays(text)).toEqual(days);
  });

  it('stops the start with one line when the records would be kept less than a year', () => {
    const error = configError({ ACCESS_RECORD_RETENTION: '364d' });
    expect(error.variable).toBe('ACCESS_RECORD_RETENTION');
    expect(error.message).toBe(
      'Invalid configuration: ACCESS_RECORD_RETENTION must be at least 1y (365d): the law asks access records ' +
        'be kept a year (got "364d")',
    );
  });

  it.each([
    ['ACCESS_RECORD_RETENTION', '0y'],
    ['ACCESS_RECORD_RETENTION', '6 months'],
    ['ACCESS_RECORD_RETENTION', '101y'],
    ['ACCESS_RECORD_SWEEP_INTERVAL_MINUTES', '0'],
    ['CONSOLE_WORKING_HOURS', '19:00-09:00'],
    ['CONSOLE_WORKING_HOURS', '9-18'],
    ['CONSOLE_WORKING_HOURS', '09:00-24:30'],
    ['CONSOLE_TIME_ZONE', 'Mars/Olympus_Mons'],
    ['CONSOLE_WORKING_DAYS', 'weekdays'],
    ['CONSOLE_WORKING_DAYS', 'mon-'],
    ['CONSOLE_WORKING_DAYS', 'mon,,fri'],
    ['CONSOLE_WORKING_DAYS', 'mon-wed-fri'],
  ])('refuses %s=%s, naming the variable', (variable, value) => {
    expect(configError({ [variable]: value }).variable).toBe(variable);
  });
});
