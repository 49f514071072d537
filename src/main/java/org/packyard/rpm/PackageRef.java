package org.packyard.rpm;

/** How filelists.xml and other.xml name the primary package they belong to. */
public record PackageRef(String pkgId, String name, String arch) {}
