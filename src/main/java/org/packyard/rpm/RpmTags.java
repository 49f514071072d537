package org.packyard.rpm;

/**
 * Tag numbers of rpm's signature header and main header (rpm's {@code rpmtag.h}), the ones
 * Packyard reads. Signature tags below 1000 share their numbers with main-header tags rpm keeps
 * for legacy reasons; read them from {@link RpmFile#signature()}.
 */
public final class RpmTags {
  private RpmTags() {}

  // Signature header
  /** DSA signature of the header (OpenPGP packet, binary). */
  public static final int SIG_DSAHEADER = 267;
  /** RSA signature of the header (OpenPGP packet, binary). */
  public static final int SIG_RSAHEADER = 268;
  /** SHA-1 of the header, hex string. */
  public static final int SIG_SHA1HEADER = 269;
  /** Size of header and payload, 64-bit. */
  public static final int SIG_LONGSIZE = 270;
  /** Uncompressed payload size, 64-bit. */
  public static final int SIG_LONGARCHIVESIZE = 271;
  /** SHA-256 of the header, hex string (rpm 4.14 and later). */
  public static final int SIG_SHA256HEADER = 273;
  /** Size of header and payload, 32-bit. */
  public static final int SIG_SIZE = 1000;
  /** Legacy OpenPGP signature of header and payload (binary). */
  public static final int SIG_PGP = 1002;
  /** MD5 of header and payload, 16 bytes. */
  public static final int SIG_MD5 = 1004;
  /** Legacy GnuPG (DSA) signature of header and payload (binary). */
  public static final int SIG_GPG = 1005;
  /** Uncompressed payload size, 32-bit. */
  public static final int SIG_PAYLOADSIZE = 1007;

  // Main header
  public static final int NAME = 1000;
  public static final int VERSION = 1001;
  public static final int RELEASE = 1002;
  public static final int EPOCH = 1003;
  public static final int SUMMARY = 1004;
  public static final int DESCRIPTION = 1005;
  public static final int BUILDTIME = 1006;
  public static final int BUILDHOST = 1007;
  public static final int SIZE = 1009;
  public static final int VENDOR = 1011;
  public static final int LICENSE = 1014;
  public static final int PACKAGER = 1015;
  public static final int GROUP = 1016;
  public static final int URL = 1020;
  public static final int ARCH = 1022;
  public static final int OLDFILENAMES = 1027;
  public static final int FILEMODES = 1030;
  public static final int FILEFLAGS = 1037;
  public static final int SOURCERPM = 1044;
  public static final int ARCHIVESIZE = 1046;
  public static final int PROVIDENAME = 1047;
  public static final int REQUIREFLAGS = 1048;
  public static final int REQUIRENAME = 1049;
  public static final int REQUIREVERSION = 1050;
  public static final int CONFLICTFLAGS = 1053;
  public static final int CONFLICTNAME = 1054;
  public static final int CONFLICTVERSION = 1055;
  public static final int CHANGELOGTIME = 1080;
  public static final int CHANGELOGNAME = 1081;
  public static final int CHANGELOGTEXT = 1082;
  public static final int OBSOLETENAME = 1090;
  public static final int SOURCEPACKAGE = 1106;
  public static final int PROVIDEFLAGS = 1112;
  public static final int PROVIDEVERSION = 1113;
  public static final int OBSOLETEFLAGS = 1114;
  public static final int OBSOLETEVERSION = 1115;
  public static final int DIRINDEXES = 1116;
  public static final int BASENAMES = 1117;
  public static final int DIRNAMES = 1118;
  public static final int OLDSUGGESTSNAME = 1156;
  public static final int OLDSUGGESTSVERSION = 1157;
  public static final int OLDSUGGESTSFLAGS = 1158;
  public static final int OLDENHANCESNAME = 1159;
  public static final int OLDENHANCESVERSION = 1160;
  public static final int OLDENHANCESFLAGS = 1161;
  public static final int LONGSIZE = 5009;
  public static final int RECOMMENDNAME = 5046;
  public static final int RECOMMENDVERSION = 5047;
  public static final int RECOMMENDFLAGS = 5048;
  public static final int SUGGESTNAME = 5049;
  public static final int SUGGESTVERSION = 5050;
  public static final int SUGGESTFLAGS = 5051;
  public static final int SUPPLEMENTNAME = 5052;
  public static final int SUPPLEMENTVERSION = 5053;
  public static final int SUPPLEMENTFLAGS = 5054;
  public static final int ENHANCENAME = 5055;
  public static final int ENHANCEVERSION = 5056;
  public static final int ENHANCEFLAGS = 5057;
  /** Digest of the compressed payload, hex string array (rpm 4.14 and later). */
  public static final int PAYLOADDIGEST = 5092;
  /** OpenPGP hash algorithm of {@link #PAYLOADDIGEST}. */
  public static final int PAYLOADDIGESTALGO = 5093;
}
