package org.packyard.rpm;

/** A path of a package's file list; {@code type} is 'f' (file), 'd' (directory) or 'g' (ghost). */
public record FileEntry(String path, char type) {}
