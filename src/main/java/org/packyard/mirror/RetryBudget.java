package org.packyard.mirror;

/** Retries a host may still get: a reserve, plus a share of every first attempt. Thread-safe. */
final class RetryBudget {
  private final double ratio;
  private final double cap;
  private double balance;

  RetryBudget(double ratio, int reserve) {
    this.ratio = ratio;
    this.balance = reserve;
    this.cap = Math.max(reserve, 100);
  }

  /** A first attempt was made: it earns a share of a retry. */
  synchronized void deposit() {
    balance = Math.min(cap, balance + ratio);
  }

  /** Spends one retry; false when none is left. */
  synchronized boolean tryWithdraw() {
    if (balance < 1) return false;
    balance -= 1;
    return true;
  }

  synchronized double balance() {
    return balance;
  }
}
