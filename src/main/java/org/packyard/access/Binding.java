package org.packyard.access;

import java.time.Instant;

/** {@code principal} has {@code role} on {@code target} (and everything under it for a folder). */
public record Binding(Principal principal, Role role, String target, Instant createdAt, String createdBy) {}
