package dev.leaselab.lease;

/**
 * The database failed: it stayed busy past the timeout, an I/O error happened, or the file is
 * missing, read-only, corrupt or not a database; for PostgreSQL, the server cannot be reached, a
 * statement ran past its timeout, or the connection was lost. The message names the database (the
 * file, or the URL without its password); the cause is the driver's exception.
 *
 * <p>An operation that throws this has changed nothing, with one exception that no client of a
 * server can avoid: when the connection to PostgreSQL is lost while a write is committing (its
 * {@code COMMIT}, or its single statement in autocommit), the server may or may not have committed
 * it. {@link LeaseStore#state} then tells which.
 */
public class LeaseStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the database
     * @param cause the driver's exception, or null when the store itself found the failure
     */
    public LeaseStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
