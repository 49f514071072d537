package org.packyard.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A UTC clock the test moves: it stands still at {@code set}'s instant unless {@code advance}d, or,
 * made with {@link #running()}, goes with the system clock plus what the test added.
 */
public final class MovableClock extends Clock {
  private final boolean running;
  private volatile long offsetMillis;

  private MovableClock(boolean running, long offsetMillis) {
    this.running = running;
    this.offsetMillis = offsetMillis;
  }

  /** Stopped at {@code at}. */
  public static MovableClock at(Instant at) {
    return new MovableClock(false, at.toEpochMilli());
  }

  /** The system clock, moved forward by every {@link #advance}. */
  public static MovableClock running() {
    return new MovableClock(true, 0);
  }

  public synchronized void advance(Duration d) {
    offsetMillis += d.toMillis();
  }

  /** A stopped clock now reads {@code at}. */
  public synchronized void set(Instant at) {
    if (running) throw new IllegalStateException("a running clock is only advanced");
    offsetMillis = at.toEpochMilli();
  }

  @Override
  public long millis() {
    return (running ? System.currentTimeMillis() : 0) + offsetMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
