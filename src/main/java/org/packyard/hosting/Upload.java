package org.packyard.hosting;

import java.nio.file.Path;

/**
 * An uploaded package, checked and described, waiting in its temporary blob file {@code temp}
 * (not yet committed to the blob store) for its publish.
 */
record Upload(HostedPackage pkg, Path temp) {}
