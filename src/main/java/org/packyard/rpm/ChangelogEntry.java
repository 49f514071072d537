package org.packyard.rpm;

/** One {@code <changelog>} of other.xml; {@code date} is seconds since the epoch. */
public record ChangelogEntry(String author, long date, String text) {}
