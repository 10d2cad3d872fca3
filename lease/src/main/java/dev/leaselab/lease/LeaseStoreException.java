package dev.leaselab.lease;

/**
 * The database failed: it stayed busy past the timeout, an I/O error happened, or the file is
 * missing, read-only, corrupt or not a database. The message names the database file; the cause
 * is the driver's exception. An operation that throws this has changed nothing.
 */
public class LeaseStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LeaseStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
